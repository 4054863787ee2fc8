"""The parsed copy of knowledge YAML (tools/data.py): same data as a fresh YAML parse, re-parsed when
the copy is broken, and never written where there is no state folder (an `estimate` on a new
machine creates nothing)."""

from __future__ import annotations

import yaml

from tools import data


def _fresh_parse(*parts: str):
    with data.knowledge_path(*parts).open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def test_the_parsed_copy_holds_the_same_data_as_the_yaml(tmp_path, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_HOME", str(tmp_path))
    load = data.load_yaml.__wrapped__  # past the in-process lru_cache
    first = load("gpus.yaml")
    copies = list((tmp_path / "cache" / "knowledge").glob("gpus.yaml.*.marshal"))
    assert len(copies) == 1
    assert data._parsed_copy(data.knowledge_path("gpus.yaml")) == (first,)
    assert load("gpus.yaml") == first == _fresh_parse("gpus.yaml")
    assert load("models", "qwen.yaml") == _fresh_parse("models", "qwen.yaml")


def test_a_broken_copy_is_parsed_again(tmp_path, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_HOME", str(tmp_path))
    load = data.load_yaml.__wrapped__
    load("engines.yaml")
    (copy,) = (tmp_path / "cache" / "knowledge").glob("engines.yaml.*.marshal")
    copy.write_bytes(b"\x00not marshal")
    assert load("engines.yaml") == _fresh_parse("engines.yaml")


def test_no_state_folder_means_no_copy(tmp_path, monkeypatch):
    home = tmp_path / "nothing-here"
    monkeypatch.setenv("GPU_ADVISOR_HOME", str(home))
    assert data.load_yaml.__wrapped__("engines.yaml") == _fresh_parse("engines.yaml")
    assert not home.exists()
