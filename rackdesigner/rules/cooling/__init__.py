"""Cooling rules (COOL): where each rack's heat goes, and whether that place can take it.

One module per rule, named after what it checks; its docstring is the rule's
documentation (``rackdesigner rules COOL001``), and :mod:`._common` holds what they share.

Heat equals electrical load. The analysis splits every device's heat into the part the
liquid loop takes (cold plates, immersion, a rear door) and the residual air heat, and sums
both per rack (:class:`~rackdesigner.analysis.RackFacts`). Where a rack holds devices with
an unknown draw its totals are lower bounds, and the messages say "at least".

    COOL001  air_heat_limit           a rack's air heat against what air can remove
    COOL002  dense_rack_on_air        a rack dense enough for liquid, cooled by air
    COOL003  cdu_assignment           a liquid rack's CDU: missing, not a CDU, too small
    COOL004  immersion_scale          immersion against the GPU count where it pays off
    COOL005  large_model_on_air       a 100B+ model trained on air-cooled nodes
    COOL006  room_air_heat            the room's air heat against the site's cooling
    COOL007  rear_door_assignment     a rear-door rack's door: missing, wrong, too small
    COOL008  air_node_in_liquid_rack  a GPU node without cold plates in a liquid rack
    COOL009  cdu_redundancy           a CDU group with one CDU lost
    COOL010  cold_plates_without_loop a cold-plate node in a rack without a liquid loop
    COOL011  loop_path                a CDU, door or in-row cooler on no water loop (v1.4)
    COOL012  cdu_approach             a CDU not rated at its approach, or one it cannot make
    COOL013  pump_flow                a CDU group's pumps against its cold plates' flow
    COOL014  return_temperature       the secondary return against a CDU's or node's limit
    COOL015  supply_temperature       the secondary supply against a node's maximum inlet
    COOL016  loop_capacity            a water loop's heat against its plant's capacity
    COOL017  loop_flow                a water loop's flow against its heat
    COOL018  door_water               a rear door or in-row cooler on water warmer than rated
    COOL019  air_residue              a liquid rack's residual air heat with nowhere to go
    COOL020  inrow_assignment         a rack's in-row cooler: not one, or too small
"""

# Imported for their registrations; `rules.registry.all_rules` puts them in code order.
from rackdesigner.rules.cooling import (  # noqa: F401
    air_heat_limit,
    air_node_in_liquid_rack,
    air_residue,
    cdu_approach,
    cdu_assignment,
    cdu_redundancy,
    cold_plates_without_loop,
    dense_rack_on_air,
    door_water,
    immersion_scale,
    inrow_assignment,
    large_model_on_air,
    loop_capacity,
    loop_flow,
    loop_path,
    pump_flow,
    rear_door_assignment,
    return_temperature,
    room_air_heat,
    supply_temperature,
)
