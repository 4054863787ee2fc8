"""The parsed copies of knowledge YAML (tools/data.py) and of the guide (tools/retrieval/corpus.py): same data as a fresh YAML parse, re-parsed when
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


def test_the_guide_copy_gives_the_same_passages_and_follows_an_edit(tmp_path, monkeypatch):
    from tools.retrieval import corpus
    from tools.retrieval.paths import GUIDE_DIR

    home, guide = tmp_path / "home", tmp_path / "guide"
    home.mkdir()
    guide.mkdir()
    monkeypatch.setenv("GPU_ADVISOR_HOME", str(home))
    for name in ("xid-errors.md", "cluster-networking.md"):
        (guide / name).write_text((GUIDE_DIR / name).read_text(encoding="utf-8"), encoding="utf-8")
    parsed = corpus.load_guide(guide)  # parses and writes the copy
    assert (home / "cache" / "guide_passages.marshal").is_file()
    assert corpus.load_guide(guide) == parsed  # read back from the copy
    monkeypatch.setattr(corpus, "parse_guide", lambda *a: (_ for _ in ()).throw(AssertionError("parsed")))
    corpus.load_guide(guide)  # a current copy parses nothing
    monkeypatch.undo()
    monkeypatch.setenv("GPU_ADVISOR_HOME", str(home))
    edited = guide / "xid-errors.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n## Extra\n\n新增一段。\n\nOne more section.\n", "utf-8")
    again = corpus.load_guide(guide)
    assert len(again) == len(parsed) + 1
    assert [p.section for p in again if p.section == "Extra"] == ["Extra"]
