"""[workload]'s v1.4 keys: they load, round-trip, reach the JSON Schema, and contradictions
or a size the loader does not understand are refused with their line."""

from __future__ import annotations

import pytest

from rackdesigner.layout_io import dumps, load_text
from rackdesigner.layout_io.json_schema import layout_schema
from rackdesigner.model.diagnostics import LayoutError

FULL = """format = 1
name = "w"

[workload]
kind = "fine-tuning"
model_params = 70e9
parallelism = "fsdp"
steps_per_second = 0.1
bytes_per_param = 2
model = "llama-3.1-70b"
method = "qlora"
precision = "nf4"
zero_stage = 2
tensor_parallel = 2
pipeline_parallel = 4
context_length = 8192
batch_size = 4
activation_memory = "12 GB"
lora_rank = 16
adapter_params = 207e6
layers = 80
hidden_size = 8192
kv_heads = 8
head_dim = 128
notes = "every v1.4 key"
"""


def errors(body: str) -> list[str]:
    with pytest.raises(LayoutError) as caught:
        load_text(f'format = 1\nname = "w"\n\n[workload]\n{body}', file="w.toml")
    return [f"{d.line}: {d.message}" for d in caught.value.diagnostics]


def test_every_key_loads_and_round_trips_byte_identically() -> None:
    layout = load_text(FULL)
    work = layout.workload
    assert work is not None
    assert (work.model, work.method, work.precision, work.zero_stage) == (
        "llama-3.1-70b",
        "qlora",
        "nf4",
        2,
    )
    assert work.activation_memory == 96e9  # bits
    assert dumps(layout) == FULL


def test_the_json_schema_knows_the_keys() -> None:
    workload = layout_schema()["properties"]["workload"]["properties"]
    assert "llama-3.1-405b" in workload["model"]["enum"]
    assert workload["zero_stage"]["enum"] == [0, 1, 2, 3]
    assert workload["tensor_parallel"]["type"] == "integer"


def test_a_named_model_gives_the_size() -> None:
    layout = load_text('format = 1\nname = "w"\n[workload]\nmodel = "llama-3.1-405b"\n')
    assert layout.workload is not None and layout.workload.params == pytest.approx(
        405.85e9, rel=1e-4
    )


def test_a_size_written_as_people_say_it() -> None:
    assert errors('model_params = "70B"\n') == [
        '5: model_params must be a number, got a string ("70B"): write 70e9 (a plain number, '
        "not a string)"
    ]


def test_an_unknown_method_or_model() -> None:
    found = errors('method = "qlora4"\nmodel = "llama-3-70b"\n')
    assert found[0].startswith('5: method must be one of full | lora | qlora, got "qlora4"')
    assert "did you mean 'llama-3.1-70b'?" in found[1] and found[1].startswith("6:")


def test_contradictions_are_refused_at_their_line() -> None:
    found = errors(
        'kind = "fine-tuning"\nmodel = "llama-3.1-70b"\nmodel_params = 7e9\nmethod = "full"\n'
        'precision = "nf4"\nparallelism = "zero3"\nzero_stage = 1\nlora_rank = 8\n'
    )
    assert found == [
        '7: model_params = 7e9 is not Llama 3.1 70B\'s 70.55e9 (model = "llama-3.1-70b")',
        "9: a full fine-tune trains every weight and cannot keep them in nf4",
        '11: zero_stage = 1 contradicts parallelism = "zero3"',
        '12: lora_rank is for LoRA adapters, and method = "full"',
    ]


def test_training_keys_on_an_inference_cluster() -> None:
    assert errors('kind = "inference"\nmethod = "lora"\n') == [
        '6: method is for training and fine-tuning, and kind = "inference"'
    ]


def test_qlora_with_a_16_bit_base_and_ddp_with_zero3() -> None:
    assert errors(
        'method = "qlora"\nprecision = "bf16"\nparallelism = "ddp"\nzero_stage = 3\n'
    ) == [
        "6: QLoRA keeps the base weights in 4 bits (nf4), not bf16",
        '8: zero_stage = 3 shards the parameters, which parallelism = "ddp" does not',
    ]
