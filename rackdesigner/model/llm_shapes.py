"""The shapes of a few well-known transformer models, for ``[workload] model`` (v1.4).

The memory arithmetic (analysis/workload_memory.py) needs more than a parameter count for
two things: the KV cache of inference (layers × KV heads × head size) and the LoRA adapters
of a fine-tune (the block's linear layers). A layout names one of these models, or declares
the shape's keys itself (``layers``, ``hidden_size``, ``kv_heads``, ``head_dim``).

Each entry is read from its publisher's model configuration (Hugging Face ``config.json``)
or paper; the parameter count is computed from the shape (embeddings, attention, MLP,
norms; GPT-3's biases and position embeddings, 0.02 % of it, are left out) and matches
the published count to within 1 %: that is the check the tests make.

Data only: the loader validates a name against :data:`SHAPES`, nothing here computes memory.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ModelShape:
    key: str
    name: str
    layers: int
    hidden: int  # the residual stream's width, d_model
    heads: int  # query heads
    kv_heads: int  # key/value heads (fewer than ``heads`` with grouped-query attention)
    head_dim: int
    ffn: int  # the MLP's inner width
    vocab: int
    gated: bool  # a SwiGLU MLP (gate, up, down: three matrices) rather than two
    tied: bool  # the output layer shares the input embedding's weights
    published: float  # the parameter count its publisher gives
    source: str

    def linears(self) -> tuple[tuple[int, int], ...]:
        """(inputs, outputs) of each linear layer of one transformer block."""
        q = self.heads * self.head_dim
        kv = self.kv_heads * self.head_dim
        h, f = self.hidden, self.ffn
        attention = ((h, q), (h, kv), (h, kv), (q, h))
        mlp = ((h, f), (h, f), (f, h)) if self.gated else ((h, f), (f, h))
        return attention + mlp

    @property
    def params(self) -> float:
        """Parameters counted from the shape: the blocks' linear layers and two norms each,
        the embedding (twice unless tied) and the final norm."""
        block = sum(a * b for a, b in self.linears()) + 2 * self.hidden
        embeddings = self.vocab * self.hidden * (1 if self.tied else 2)
        return float(self.layers * block + embeddings + self.hidden)

    def lora_params(self, rank: int) -> float:
        """Trainable parameters of LoRA adapters of ``rank`` on every linear layer of every
        block, as the QLoRA paper trains them (Dettmers et al. 2023, §4: "LoRA on all
        linear transformer block layers"): an adapter on a d_in × d_out layer adds
        rank × (d_in + d_out) (Hu et al. 2021, LoRA, §4.1: B is d × r, A is r × k)."""
        return float(self.layers * rank * sum(a + b for a, b in self.linears()))


_LLAMA3_SOURCE = (
    "Meta, The Llama 3 Herd of Models (Dubey et al. 2024, arXiv:2407.21783), Table 3, and "
    "the meta-llama/Llama-3.1-{size} config.json on Hugging Face: {layers} layers, hidden "
    "{hidden}, FFN {ffn}, {heads} attention heads, 8 key/value heads of 128, vocabulary "
    "128,256, untied embeddings"
)


def _llama3(
    size: str, layers: int, hidden: int, ffn: int, heads: int, published: float
) -> ModelShape:
    return ModelShape(
        f"llama-3.1-{size.lower()}",
        f"Llama 3.1 {size}",
        layers,
        hidden,
        heads,
        8,
        128,
        ffn,
        128_256,
        gated=True,
        tied=False,
        published=published,
        source=_LLAMA3_SOURCE.format(
            size=size, layers=layers, hidden=hidden, ffn=f"{ffn:,}", heads=heads
        ),
    )


SHAPES: dict[str, ModelShape] = {
    s.key: s
    for s in (
        _llama3("8B", 32, 4096, 14_336, 32, 8.03e9),
        _llama3("70B", 80, 8192, 28_672, 64, 70.6e9),
        _llama3("405B", 126, 16_384, 53_248, 128, 405.9e9),
        ModelShape(
            "llama-2-70b",
            "Llama 2 70B",
            80,
            8192,
            64,
            8,
            128,
            28_672,
            32_000,
            gated=True,
            tied=False,
            published=69e9,
            source="Meta, Llama 2 (Touvron et al. 2023, arXiv:2307.09288), §2.2 (grouped-query "
            "attention for the 70B model), and the meta-llama/Llama-2-70b-hf config.json: 80 "
            "layers, hidden 8192, intermediate 28,672, 64 heads, 8 key/value heads, vocabulary "
            "32,000",
        ),
        ModelShape(
            "llama-65b",
            "LLaMA 65B",
            80,
            8192,
            64,
            64,
            128,
            22_016,
            32_000,
            gated=True,
            tied=False,
            published=65.2e9,
            source="Meta, LLaMA (Touvron et al. 2023, arXiv:2302.13971), Table 2: 65.2B, "
            "dimension 8192, 64 heads, 80 layers; intermediate 22,016 from the "
            "huggyllama/llama-65b config.json. The model the QLoRA paper fine-tunes on one "
            "48 GB GPU",
        ),
        ModelShape(
            "mistral-7b",
            "Mistral 7B",
            32,
            4096,
            32,
            8,
            128,
            14_336,
            32_000,
            gated=True,
            tied=False,
            published=7.24e9,
            source="Mistral AI, Mistral 7B (Jiang et al. 2023, arXiv:2310.06825), Table 1: dim "
            "4096, 32 layers, head_dim 128, hidden_dim 14,336, 32 heads, 8 kv_heads, vocabulary "
            "32,000",
        ),
        ModelShape(
            "gpt-3-175b",
            "GPT-3 175B",
            96,
            12_288,
            96,
            96,
            128,
            49_152,
            50_257,
            gated=False,
            tied=True,
            published=175e9,
            source="OpenAI, Language Models are Few-Shot Learners (Brown et al. 2020, "
            "arXiv:2005.14165), Table 2.1: 96 layers, d_model 12,288, 96 heads of 128; §2.1: "
            "d_ff = 4 × d_model; the GPT-2 vocabulary (50,257) with tied embeddings",
        ),
    )
}
