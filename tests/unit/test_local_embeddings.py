"""The numpy encoder gives all-MiniLM-L6-v2's vectors: the reference values are
sentence-transformers' (torch) for the same sentences, as an independent ONNX port checks
them (first six dimensions, tolerance 1e-6), so a wrong layer, GELU, mask or pooling shows."""

from __future__ import annotations

import numpy as np
import pytest

from shared.tools import local_embeddings

REFERENCE = {
    "This is an example sentence": [
        0.06765693, 0.06349593, 0.04871314, 0.07930495, 0.03744806, 0.00265273,
    ],
    "Each sentence is converted.": [
        0.07853645, 0.08856265, -0.00209270, -0.00717247, -0.01252624, 0.01881747,
    ],
    "": [-0.11883835, 0.04829856, -0.00254805, -0.01101118, 0.05195070, 0.01029179],
}  # fmt: skip


@pytest.fixture(scope="module")
def vectors() -> np.ndarray:
    return local_embeddings.encode(list(REFERENCE))


def test_the_vectors_are_the_reference_models(vectors: np.ndarray) -> None:
    expected = np.array(list(REFERENCE.values()), dtype=np.float32)
    assert vectors.shape == (len(REFERENCE), local_embeddings.DIMENSIONS)
    assert np.abs(vectors[:, :6] - expected).max() < 1e-6


def test_each_row_has_unit_length(vectors: np.ndarray) -> None:
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_paraphrase_is_closer_than_an_unrelated_sentence() -> None:
    question, paraphrase, unrelated = local_embeddings.encode(
        [
            "How do I flatten a list of lists?",
            "Chain several iterables together into one sequence of their items.",
            "The wall clock time is given in seconds since the epoch.",
        ]
    )
    assert question @ paraphrase > question @ unrelated + 0.1


def test_a_text_has_the_same_vector_alone_or_in_a_padded_batch() -> None:
    """Padding must get no attention: a short text batched with a long one is unchanged."""
    short = "A context manager's __exit__ runs when the with block ends."
    long = " ".join(["The with statement wraps a block in a context manager."] * 30)
    alone = local_embeddings.encode([short])[0]
    batched = local_embeddings.encode([long, short, long])
    assert np.abs(batched[1] - alone).max() < 1e-5
    assert np.array_equal(batched[0], batched[2])


def test_long_texts_are_cut_at_the_models_limit() -> None:
    long = " ".join(["word"] * 1000)
    assert local_embeddings.token_count([long]) == local_embeddings.MAX_TOKENS
    assert local_embeddings.encode([]).shape == (0, local_embeddings.DIMENSIONS)
