"""The named model shapes: each one's parameter count, computed from its shape, is its
publisher's to within 1 % (the check that the shape was copied right)."""

from __future__ import annotations

import pytest

from rackdesigner.model.llm_shapes import SHAPES


@pytest.mark.parametrize("key", sorted(SHAPES))
def test_the_shape_gives_the_published_parameter_count(key: str) -> None:
    shape = SHAPES[key]
    assert shape.params == pytest.approx(shape.published, rel=0.01)
    assert shape.source and shape.key == key


def test_llama_3_1_counts_exactly() -> None:
    """Llama 3.1 8B: 32 × (4096 × (4096 + 2 × 1024 + 4096) + 3 × 4096 × 14,336 + 2 × 4096)
    + 2 × 128,256 × 4096 + 4096 = 8,030,261,248, the safetensors' count."""
    assert SHAPES["llama-3.1-8b"].params == 8_030_261_248
    assert SHAPES["llama-3.1-70b"].params == 70_553_706_496


def test_gpt3_has_two_mlp_matrices_and_tied_embeddings() -> None:
    """96 × (4 × 12,288² + 2 × 12,288 × 49,152 + 2 × 12,288) + 50,257 × 12,288 + 12,288 =
    174.57e9 (175e9 published, with biases and position embeddings)."""
    assert SHAPES["gpt-3-175b"].params == pytest.approx(174.566e9, rel=1e-5)
