"""Power rules (PWR): what each rack draws, what its feeds deliver, and how the load lands on
the lines. One module per rule, named after what it checks; its docstring is the rule's
documentation (``rackdesigner rules PWR001``), and :mod:`._common` holds the wording they
share.

The analysis sums every device's draw per rack (:class:`~rackdesigner.analysis.RackFacts`),
computes each feed's usable capacity (V × I × derate, × √3 for 3-phase) and its line
currents when its side carries the whole rack (:class:`~rackdesigner.analysis.FeedFacts`).
Where a rack holds devices of unknown draw its totals are lower bounds ("at least", PWR009);
where a draw is estimated from GPU TDP (PWR006) the messages say "(estimated)".

    PWR001  feed_capacity        the rack's load against its feeds' usable capacity
    PWR002  gpu_outlet_voltage   GPU racks: outlet voltage, and load on one phase
    PWR003  shared_circuit       two feeds on one circuit
    PWR004  line_currents        each line against its breaker; phase balance
    PWR005  power_below_gpu_tdp  a declared power below the GPUs' TDP
    PWR006  estimated_power      a GPU node's draw estimated from its GPUs
    PWR007  site_budget          the site's load against its power budget
    PWR008  psus_on_side_loss    the PSUs a device keeps when one side is lost
    PWR009  unknown_power        a device type of unknown draw
    PWR010  psu_input_voltage    PSU input range against the outlet voltage
    PWR011  pdu_rating           PDU ratings against the side's load and the feed
    PWR012  pdu_outlets          PSU cords against the PDUs' outlets
    PWR013  feed_without_side    a feed without a side beside sided feeds
    PWR014  pdu_feed_match       a PDU against its feed: voltage, rating, one per circuit
    PWR015  standard_current     a feed current that is no standard rating for its region
    PWR016  power_shelves        rack-scale trays against the power shelves, one shelf lost
    PWR017  busbar               the busbar current against its rating; trays without shelves
    PWR018  shelf_feeds          each feed against its power shelves' AC input, a side lost
    PWR019  shelves_side_loss    the power shelves left with one feed side lost
    PWR020  no_outlet            a powered device with nothing in its rack to plug into
    PWR021  chain_load           (v1.4) a power-chain element's load against its rating
    PWR022  chain_single_failure the chain's elements with any one element (or module) lost
    PWR023  chain_ups_transient  a UPS's transient peak against its overload capability
    PWR024  chain_false_redundancy  a rack's sides meeting in one element (a false 2N)
    PWR025  chain_voltage        a feed's or element's voltage against what feeds it
    PWR026  chain_positions      an RPP's poles, a busway's tap-off positions
    PWR027  chain_ups_runtime    a UPS's runtime against its generators' start
    PWR028  chain_generator_transient  a generator at the transient peak, the utility lost
    PWR029  chain_unrated        a chain element without a rating
    PWR030  psu_inlet_current    a PSU's draw against its inlet's rated current (C14, C20)

The chain's facts are :mod:`rackdesigner.analysis.power_chain`'s and its failures
:mod:`rackdesigner.analysis.power_failures`'.
"""

# Imported for their registrations; `rules.registry.all_rules` puts them in code order.
from rackdesigner.rules.power import (  # noqa: F401
    busbar,
    chain_false_redundancy,
    chain_generator_transient,
    chain_load,
    chain_positions,
    chain_single_failure,
    chain_unrated,
    chain_ups_runtime,
    chain_ups_transient,
    chain_voltage,
    estimated_power,
    feed_capacity,
    feed_without_side,
    gpu_outlet_voltage,
    line_currents,
    no_outlet,
    pdu_feed_match,
    pdu_outlets,
    pdu_rating,
    power_below_gpu_tdp,
    power_shelves,
    psu_inlet_current,
    psu_input_voltage,
    psus_on_side_loss,
    shared_circuit,
    shelf_feeds,
    shelves_side_loss,
    site_budget,
    standard_current,
    unknown_power,
)
