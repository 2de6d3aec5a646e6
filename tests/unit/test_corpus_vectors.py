"""The built-in collection's chunk vectors: shipped for this corpus, built with its file, and
absent (the collection searched by its words as before) where the model is not installed."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from shared.adapters.search import corpus_vectors
from shared.adapters.search.builtin_corpus import BuiltinCorpus
from shared.core.config import Settings
from tests.contract.conftest import shared_corpus

pytestmark = pytest.mark.skipif(not corpus_vectors.available(), reason="model not installed")


def _folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "chain.md").write_text(
        "# Chaining iterables\n\nitertools.chain(*iterables) yields the items of the first "
        "iterable, then of the second, until all are exhausted: it flattens one level.\n"
    )
    (docs / "bake.md").write_text(
        "# Baking bread\n\nKnead the dough for ten minutes, let it rise in a warm place, then "
        "bake it at 220 degrees until the crust sounds hollow.\n"
    )
    return docs


def test_the_shipped_vectors_are_the_models_own_for_their_chunks():
    from shared.tools import local_embeddings

    corpus = shared_corpus()
    data = corpus.data
    known = corpus_vectors.shipped()
    texts = []
    for doc in data.documents[:: max(len(data.documents) // 6, 1)]:  # a few, corpus-wide
        chunk = corpus.index.document_chunks(data.collection_id, doc.document_id)[0]
        texts.append(corpus_vectors.chunk_text(doc.title, chunk.heading_path, chunk.text))
    assert len(texts) >= 5 and all(corpus_vectors.digest(t) in known for t in texts)
    fresh = local_embeddings.encode(texts)
    stored = np.stack([known[corpus_vectors.digest(t)] for t in texts]).astype(np.float32)
    assert np.abs(stored - fresh).max() < 2e-3  # float16 keeps 3 significant digits
    assert data.vectors is not None and len(data.vectors) == sum(d.chunks for d in data.documents)


def test_every_chunk_of_this_machines_corpus_has_a_shipped_vector():
    """Else a cold build embeds them (minutes): ``python -m bench.semantic_vectors --ship``."""
    corpus = shared_corpus()
    data = corpus.data
    known = corpus_vectors.shipped()
    missing = [
        chunk.id
        for doc in data.documents
        for chunk in corpus.index.document_chunks(data.collection_id, doc.document_id)
        if corpus_vectors.digest(
            corpus_vectors.chunk_text(doc.title, chunk.heading_path, chunk.text)
        )
        not in known
    ]
    assert len(missing) <= len(data.vectors) // 100, missing[:5]


def test_a_folder_corpus_gets_vectors_that_rank_its_documents_by_meaning(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", local_corpus_path=str(_folder(tmp_path)))
    corpus = BuiltinCorpus(settings)
    cosines = corpus.document_cosines("How do I flatten a list of lists?")
    assert cosines is not None
    ranked = sorted(cosines, key=lambda url: -cosines[url])
    assert ranked[0].endswith("chain.md") and cosines[ranked[0]] > cosines[ranked[1]] + 0.2


def test_without_the_model_the_collection_has_no_vectors_and_searches_as_before(
    tmp_path, monkeypatch
):
    folder = _folder(tmp_path)
    with_model = BuiltinCorpus(Settings(data_dir=tmp_path / "a", local_corpus_path=str(folder)))
    before = with_model.search("knead dough", 5)
    monkeypatch.setitem(sys.modules, corpus_vectors.MODEL_PACKAGE, None)  # not importable
    assert not corpus_vectors.available()
    plain = BuiltinCorpus(Settings(data_dir=tmp_path / "b", local_corpus_path=str(folder)))
    assert plain.data.vectors is None and plain.document_cosines("flatten a list") is None
    assert [r.url for r in plain.search("knead dough", 5)] == [r.url for r in before]
    assert before and before[0].url.endswith("bake.md")
