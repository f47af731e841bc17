"""Chinese words glossed in English (memlib/glosses.py): meaning search across the two
languages with the default model, and English text embedded exactly as before."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlib import Insight, MemoryStore, Project, Scope
from memlib.glosses import CJK, MAX_CHARACTERS, gloss, with_glosses, words


def test_words_are_found_longest_first_and_glossed_with_their_meanings():
    assert words("前端框架的选择") == ["前端", "框架", "的", "选择"]
    assert "framework" in gloss("前端框架") and "database" in gloss("資料庫")  # traditional too
    assert gloss("的") == ""  # a particle's other readings ("bull's-eye") are noise
    english = with_glosses("缓存多久过期")
    assert english.startswith("缓存多久过期\n(") and "cache" in english and "overdue" in english
    assert with_glosses("ぁ") == "ぁ"  # no Chinese word, nothing added


def test_a_long_text_is_glossed_only_as_far_as_the_model_reads():
    long = "缓存过期时间设为五分钟" * 1000
    assert MAX_CHARACTERS <= len(gloss(long)) < MAX_CHARACTERS + 200
    assert with_glosses(long).startswith(long)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_a_text_without_chinese_is_embedded_as_it_is(text):
    if CJK.search(text):
        assert with_glosses(text).startswith(text)
    else:
        assert with_glosses(text) is text


def test_english_embeds_as_the_bare_model_does(model):
    """English recall cannot change: the default's vectors of English text are the 8-bit
    model's, bit for bit."""
    texts = ["Ledger retries must be idempotent", "deploy with Argo CD", "a 10% rollout"]
    assert np.array_equal(model.embed(texts), model.inner.embed(texts))
    assert not np.array_equal(model.embed(["缓存过期时间设为五分钟"]), model.inner.embed(["缓存过期时间设为五分钟"]))


CHINESE = ["缓存过期时间设为五分钟", "用户只喝美式咖啡，不加糖", "周五不上线新版本", "支付失败时最多重试三次",
           "登录页面在手机上加载需要四秒"]
ENGLISH = ["Cache entries expire after five minutes.", "The user only drinks americano, no sugar.",
           "No new releases on Fridays.", "Failed payments are retried at most three times.",
           "The login page takes four seconds to load on phones."]


@pytest.mark.parametrize("texts, question, answer", [
    (CHINESE, "how long until the cache expires", 0),
    (CHINESE, "what does the user like to drink", 1),
    (ENGLISH, "支付失败重试几次", 3),
    (ENGLISH, "缓存多久过期", 0),
])
def test_a_question_in_one_language_finds_the_memory_in_the_other(tmp_path, model, texts, question, answer):
    store = MemoryStore.open(str(tmp_path / "store"), embedder=model)
    project = Project(name="workspace")
    memories = [Insight(project_id=project.id, content=text) for text in texts]
    store.add([project, *memories])
    hits = store.search(question, k=1, mode="vector", scope=Scope(project_id=project.id))
    assert hits[0].id == memories[answer].id
