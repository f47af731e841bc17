"""A store records the search settings it was created with and searches with them, whoever
opens it; other settings, or a recorded value that is not valid, are refused in one line."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memlib import InvalidInput, MemoryStore, StoreError
from memlib.embeddings import HashEmbedder
from memlib.memory_store import META_SEARCH
from memlib.sample import generate
from memlib.search import SearchConfig, search
from memlib.store import Store
from tests.test_cli import fails, run


def _ranked(store, text, config=None):
    return [h.id for h in (search(store, text, k=20, config=config) if config else store.search(text, k=20))]


def test_a_store_searches_with_the_settings_it_recorded(tmp_path):
    path = str(tmp_path / "s")
    rrf = SearchConfig(fusion="rrf", neighbours=0.0)
    store = MemoryStore.open(path, embedder=HashEmbedder(), search=rrf)
    store.add(generate(300, seed=2, anchor=datetime.now(timezone.utc)).memories)
    reopened = MemoryStore.open(path)  # nothing said: what it recorded
    assert reopened.search_config == rrf
    texts = ["ledger retries", "flaky test in CI", "rollout of the payment service"]
    assert [_ranked(reopened, t) for t in texts] == [_ranked(reopened, t, rrf) for t in texts]
    assert [_ranked(reopened, t) for t in texts] != [_ranked(reopened, t, SearchConfig()) for t in texts]
    assert MemoryStore.open(path, search=rrf).search_config == rrf  # the same settings: fine
    with pytest.raises(StoreError, match="fusion 'rrf' \\(not 'convex'\\)"):
        MemoryStore.open(path, search=SearchConfig())
    assert MemoryStore.open(str(tmp_path / "new"), embedder=HashEmbedder()).search_config == SearchConfig()


def test_a_recorded_value_that_is_not_valid_is_refused_on_open(tmp_path):
    path = str(tmp_path / "s")
    Store.open(path, embedder=HashEmbedder(), recorded={META_SEARCH: '{"alpha": 3}'})
    with pytest.raises(InvalidInput, match="search setting alpha: Input should be less than or equal to 1"):
        MemoryStore.open(path)


def test_a_store_from_before_the_record_searches_with_the_defaults(tmp_path):
    path = str(tmp_path / "s")
    Store.open(path, embedder=HashEmbedder())  # no search settings recorded
    assert META_SEARCH not in MemoryStore.open(path).meta()
    assert MemoryStore.open(path).search_config == SearchConfig()


def test_init_records_search_settings_and_refuses_bad_ones(tmp_path):
    path = tmp_path / "s"
    out = run("init", "--embedder", "hash", "--search", "fusion=rrf", "--search", "alpha=0.5", store=path).stdout
    assert '"fusion":"rrf"' in out and '"alpha":0.5' in out
    assert MemoryStore.open(str(path)).search_config == SearchConfig(fusion="rrf", alpha=0.5)
    assert "was created to search with" in fails("init", "--search", "alpha=0.7", store=path)
    for bad, message in [("alpha=7", "alpha: Input should be less than or equal to 1"),
                         ("colour=red", "colour: Extra inputs are not permitted"),
                         ("fusion", "--search takes key=value")]:
        assert message in fails("init", "--embedder", "hash", "--search", bad, store=tmp_path / "other")
    assert not (tmp_path / "other").exists()
