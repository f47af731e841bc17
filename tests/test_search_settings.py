"""A store records the search settings it was created with and searches with them, whoever
opens it; other settings, or a recorded value that is not valid, are refused in one line."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memlib import InvalidInput, MemoryStore, StoreError
from memlib.embeddings import HashEmbedder
from memlib.memory_store import META_SEARCH
from memlib.sample import generate
from memlib.search import SearchConfig
from memlib.search.search import search
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
    assert MemoryStore.open(path).search_config == SearchConfig(tokenizer="simple")  # its index's words


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


CHINESE = ["用户决定使用 React 作为前端框架", "前端框架的选择推迟到下周再讨论", "讨论了数据库选型，最终选择 SQLite",
           "后端服务使用 Go 语言编写", "前端页面加载太慢，需要优化", "我们每周一开会讨论进度",
           "The frontend framework is React, not Vue", "数据库备份每天凌晨运行"]


def _chinese_store(path, search=None):
    from memlib import Insight, Project

    store = MemoryStore.open(path, embedder=HashEmbedder(), search=search)
    p = Project(name="workspace")
    memories = [Insight(project_id=p.id, content=text) for text in CHINESE]
    store.add([p, *memories])
    return store, {m.content: m.id for m in memories}


def test_chinese_words_are_found_by_full_text_search(tmp_path):
    """A new store's full-text index finds words in Chinese, which has no spaces between
    them, as in English (the ICU tokenizer); one made with the tokenizer of older stores
    ('simple') finds nothing, a run of Chinese being one word to it."""
    store, ids = _chinese_store(str(tmp_path / "s"))
    assert store.tokenizer == "icu" and store.stats()["tokenizer"] == "icu"
    phrase = {ids[CHINESE[0]], ids[CHINESE[1]]}
    for mode in ("fts", "hybrid"):
        assert {h.id for h in store.search("前端框架", k=2, mode=mode)} == phrase, mode
    assert store.search("React 前端框架", k=1, mode="fts")[0].id == ids[CHINESE[0]]  # mixed
    assert store.search("frontend frameworks", k=1, mode="fts")[0].id == ids[CHINESE[6]]  # English stems as before
    assert {h.id for h in store.search("数据库", k=5, mode="fts")} == {ids[CHINESE[2]], ids[CHINESE[7]]}
    old, _ = _chinese_store(str(tmp_path / "old"), SearchConfig(tokenizer="simple"))
    assert old.search("前端框架", mode="fts") == []
    assert MemoryStore.open(str(tmp_path / "old")).tokenizer == "simple"  # recorded, kept


def test_a_store_recorded_before_the_tokenizer_keeps_its_index_words(tmp_path):
    path = str(tmp_path / "s")
    Store.open(path, embedder=HashEmbedder(), recorded={META_SEARCH: '{"fusion": "rrf"}'})
    store = MemoryStore.open(path)
    assert store.search_config == SearchConfig(fusion="rrf", tokenizer="simple") and store.tokenizer == "simple"


def test_search_from_the_shell_finds_chinese(tmp_path):
    path = tmp_path / "s"
    run("init", "--embedder", "hash", store=path)
    project = run("add", "--kind", "project", "--name", "工作区", store=path).stdout.strip()
    for text in CHINESE[:4]:
        run("add", "--kind", "insight", "--project-id", project, "--content", text, store=path)
    out = run("search", "前端框架", "--mode", "fts", store=path).stdout
    assert CHINESE[0] in out and CHINESE[1] in out and CHINESE[2] not in out
    assert "icu words" in run("stats", store=path).stdout
