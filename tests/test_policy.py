"""Retention policies: loaded by name or path (TOML or YAML), validated, overridable per project."""

from __future__ import annotations

import pytest

from memlib import policy
from memlib.errors import InvalidInput
from memlib.settings import Settings


def test_packaged_policies_load_by_name_and_by_path():
    for name in ("default", "conservative", "aggressive"):
        loaded = policy.load(name)
        assert loaded.name == name and loaded.version >= 1
        assert policy.load(str(policy.PACKAGED / f"{name}.toml")) == loaded
    assert set(policy.names()) >= {"default", "conservative", "aggressive"}


def test_yaml_and_a_policy_dir_of_ones_own(tmp_path, monkeypatch):
    (tmp_path / "team.yaml").write_text(
        "name: team\nversion: 4\nmin_decay_score: 0.3\nprotected_tags: [keep]\n"
        "ttl_days: {conversation: 60}\nhalf_life_days: {default: 20}\n")
    monkeypatch.setenv("MEMLIB_POLICY_DIR", str(tmp_path))
    policy_dir = Settings.resolve().policy_dir
    team = policy.load("team", policy_dir)
    assert (team.version, team.min_decay_score, team.ttl_days) == (4, 0.3, {"conversation": 60})
    assert "team" in policy.names(policy_dir) and "team" not in policy.names()


def test_a_project_override_merges_over_the_policy():
    p = policy.load({"name": "p", "min_confidence": 10, "protected_kinds": ["decision"],
                     "projects": {"proj-a": {"min_confidence": 50, "ttl_days": {"issue": 9}}}})
    a, other = p.for_project("proj-a"), p.for_project("proj-b")
    assert (a.min_confidence, a.ttl_days, a.protected_kinds) == (50, {"issue": 9}, ("decision",))
    assert (other.min_confidence, other.ttl_days) == (10, {})


def test_the_digest_follows_the_content():
    one = policy.load({"name": "p", "min_confidence": 10})
    assert one.digest == policy.load({"name": "p", "min_confidence": 10}).digest
    assert one.digest != policy.load({"name": "p", "min_confidence": 11}).digest


@pytest.mark.parametrize("spec, message", [
    ({"name": "p", "half_life_days": {"default": -3}}, "half_life_days of default must be more than 0"),
    ({"name": "p", "half_life_days": {"insight": 3}}, "needs a 'default' entry"),
    ({"name": "p", "protected_kinds": ["thought"]}, "unknown kind 'thought'"),
    ({"name": "p", "ttl_days": {"thought": 3}}, "key 'thought' is not a kind"),
    ({"name": "p", "ttl_days": {"insight": 0}}, "must be from 1 to 36500 days"),
    ({"name": "p", "protected_kinds": ["insight"], "ttl_days": {"insight": 30}}, "both protected and dropped"),
    ({"name": "p", "min_decay": 0.1}, "min_decay: is not a policy setting"),
    ({"name": "p", "min_confidence": 101}, "min_confidence"),
    ({"name": "p", "keep_iterations": 0}, "keep_iterations"),
    ({"name": "p", "projects": {"x": {"half_life_days": {"default": 0}}}}, "must be more than 0"),
    ({"name": "p", "projects": {"x": {"bogus": 1}}}, "unknown setting 'bogus'"),
    ({"name": "p", "protected_kinds": ["issue"], "projects": {"x": {"ttl_days": {"issue": 3}}}},
     "both protected and dropped"),
    ({"name": "no spaces allowed"}, "name"),
    ({"name": "p", "ttl_days": {"insight": 10**9}}, "must be from 1 to 36500 days"),
    ({"name": "p", "half_life_days": {"default": 1e12}}, "at most 36500 days"),
    ({"name": "p", "grace_days": 10**9}, "grace_days"),
])
def test_invalid_policies_are_refused_with_the_reason(spec, message):
    with pytest.raises(InvalidInput, match=message):
        policy.load(spec)


def test_unknown_names_and_broken_files_are_one_clear_error(tmp_path, monkeypatch):
    with pytest.raises(InvalidInput, match="no policy named 'nope'"):
        policy.load("nope")
    broken = tmp_path / "broken.toml"
    broken.write_text("name = [")
    with pytest.raises(InvalidInput, match="cannot be parsed"):
        policy.load(str(broken))
    with pytest.raises(InvalidInput, match="does not exist"):
        policy.load(str(tmp_path / "absent.toml"))
    with pytest.raises(InvalidInput, match="is a folder"):
        policy.load(str(tmp_path))
    (tmp_path / "mine.toml").write_text('name = "other"')
    with pytest.raises(InvalidInput, match="its name is 'other'"):
        policy.load("mine", str(tmp_path))


def test_check_lists_every_problem_of_a_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\nmin_decay = 0.1\nmin_confidence = 300\n[half_life_days]\ndefault = -1\n')
    where, problems = policy.check(str(bad))
    assert where == str(bad)
    assert len(problems) == 3
    assert any("min_decay" in p and "not a policy setting" in p for p in problems)
    assert any(p.startswith("min_confidence") for p in problems)
    assert any("half_life_days" in p for p in problems)
    good = tmp_path / "good.toml"
    good.write_text('name = "good"\n')
    assert policy.check(str(good)) == (str(good), [])
    with pytest.raises(InvalidInput, match=r"and 2 more: memlib policy check"):
        policy.load(str(bad))
