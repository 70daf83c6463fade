"""The wording every message shares: ``first_of`` and ``name_list``, the one way to say
"a, b, c and 4 more"."""

from __future__ import annotations

from rackdesigner.model.wording import first_of, name_list


def test_first_of_names_the_first_and_counts_the_rest() -> None:
    racks = ["a01", "a02", "a03", "a04", "a05"]
    assert first_of(racks, 3) == "a01, a02, a03 and 2 more"
    assert first_of(racks, 5) == "a01, a02, a03, a04, a05"  # all shown: nothing more
    assert first_of(racks, 9) == "a01, a02, a03, a04, a05"
    assert first_of([], 3) == ""
    assert first_of(racks, 2, sep="; ", more="more racks") == "a01; a02 and 3 more racks"


def test_first_of_counts_in_thousands_and_takes_a_total() -> None:
    """1,234 left over is written as people read it; ``total`` counts what was not kept:
    2 runs kept of 5,002 found leave 5,000 more."""
    ids = [f"n{i}" for i in range(1_237)]
    assert first_of(ids, 3) == "n0, n1, n2 and 1,234 more"
    assert first_of(["x 6.1 m", "y 6.0 m"], 2, sep="; ", total=5_002) == (
        "x 6.1 m; y 6.0 m and 5,000 more"
    )


def test_name_list_reads_as_a_sentence() -> None:
    assert name_list([]) == ""
    assert name_list(["A"]) == "A"
    assert name_list(["A", "B"]) == "A and B"
    assert name_list(["A", "B", "C"]) == "A, B and C"
    assert name_list(["A", "B", "C", "D", "E"]) == "A, B, C and 2 more"
    assert name_list(["A", "B", "C", "D"], limit=4) == "A, B, C and D"


def test_and_more_counts_what_a_list_of_lines_leaves_out() -> None:
    """The designer's load errors list 20 of 1,250, a line each: "… and 1,230 more" in
    thousands, as first_of says it; nothing left out, nothing said."""
    from rackdesigner.model.diagnostics import Diagnostic
    from rackdesigner.model.wording import and_more
    from rackdesigner.tui.screens.load_error import LISTED, error_text

    assert and_more(1_230) == "and 1,230 more" and and_more(0) == "" and and_more(-3) == ""
    errors = [Diagnostic("E100", "error", f"bad {i}", line=i + 1) for i in range(1_250)]
    text = error_text("hall.toml", errors).plain
    assert LISTED == 20 and text.count("\n") == 21
    assert text.endswith("… and 1,230 more\n") and "hall.toml:20: E100" in text
    assert "more" not in error_text("hall.toml", errors[:20]).plain
