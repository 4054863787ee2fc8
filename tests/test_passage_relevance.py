"""Off-topic guide passages must not lead (tools/retrieval/subjects.py, `about:` front matter).

A passage whose heading names a GPU, model or engine the question does not, or whose declared subject
(`about:` in knowledge/guide/*.md) the question does not bring up, is flagged and moved after the passages
about the question's own subject. The questions below are real ones from public issue trackers (URL each,
none in evals/real/dev) plus our own casual phrasings; each expectation was decided by reading the guide:
which section answers, and which section merely shares words (推理/慢/显存) with the question.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def search(tmp_path_factory):
    import os

    old = os.environ.get("GPU_ADVISOR_HOME")
    os.environ["GPU_ADVISOR_HOME"] = str(tmp_path_factory.mktemp("relevance-home"))
    from tools.search_guide import reset_retrievers
    from tools.search_guide import search as run

    reset_retrievers()
    yield run
    reset_retrievers()
    if old is None:
        os.environ.pop("GPU_ADVISOR_HOME", None)
    else:
        os.environ["GPU_ADVISOR_HOME"] = old


def _answering(result):
    return [(h.doc_id, h.section) for h in result.hits if not h.low_relevance]


def _lead(search, q, k=4):
    hits = _answering(search(q, k=k))
    return hits[0] if hits else None


# (question, source URL or "own", (doc, heading prefix) that must NOT be among the answering hits)
MUST_NOT_ANSWER = [
    # 13B on two 4090s with device_map, one card 3 % busy: a GPU inference question, not CPU offload
    (
        "单机两卡加载13B模型进行推理很慢，双卡中一个使用率很低，一个使用率100%",
        "https://github.com/FreedomIntelligence/HuatuoGPT-II/issues/14",
        ("serving-engines-memory", "CPU 与 GPU 混合推理"),
    ),
    # Qwen2-VL-7B on 15 T4s slower than one 4090: not the Whisper section, not CPU offload
    (
        "Qwen2-VL-7B understanding one image takes 4 s on an RTX 4090 but over 11 s on 15 Tesla T4 GPUs with "
        "device_map auto; why is multi-GPU slower?",
        "https://github.com/QwenLM/Qwen3-VL/issues/143",
        ("vision-audio-memory", "Whisper"),
    ),
    (
        "Qwen2-VL-7B understanding one image takes 4 s on an RTX 4090 but over 11 s on 15 Tesla T4 GPUs with "
        "device_map auto; why is multi-GPU slower?",
        "https://github.com/QwenLM/Qwen3-VL/issues/143",
        ("serving-engines-memory", "CPU 与 GPU 混合推理"),
    ),
    # a VL fine-tune OOM: the max_pixels section answers, the Whisper one only shares 显存
    (
        "qwen2-vl 2b 4-bit always getting OOM when fine-tuning, how do I set max_pixels",
        "https://github.com/unslothai/unsloth/issues/1326",
        ("vision-audio-memory", "Whisper"),
    ),
    (
        "A800机器微调qwen2vl-7B 显存不足，是参数设置不正确还是真的需要很大显存？图片分辨率比较高",
        "https://github.com/modelscope/ms-swift/issues/2529",
        ("vision-audio-memory", "Whisper"),
    ),
    # a phone is not LoRA
    (
        "这个模型能够部署在手机设备上吗？比如使用 llama.cpp 部署在安卓或者鸿蒙手机上",
        "https://github.com/om-ai-lab/VLX-Flow/issues/1",
        ("lora-qlora", "LoRA 的原理"),
    ),
    (
        "InternVL2-1b is quite good for our task, but we want to deploy it to Android devices, any framework?",
        "https://github.com/OpenGVLab/InternVL/issues/595",
        ("lora-qlora", "LoRA 的原理"),
    ),
    # more RAM / more VRAM to train faster: not the Windows sysmem fallback (no Windows in the question)
    (
        "Can more video memory occupied to speed up training? Is there any way to use free gpu memory to "
        "reduce the training time",
        "https://github.com/kwea123/nerf_pl/issues/176",
        ("framework-errors", "Windows 上新卡比旧卡慢"),
    ),
    (
        "More ram more speed? is it possible to increase ram consumption to speed up inference?",
        "https://github.com/bes-dev/stable_diffusion.openvino/issues/63",
        ("framework-errors", "Windows 上新卡比旧卡慢"),
    ),
    # low GPU utilisation while generating on 4 A100s with device_map: not CPU offload of MoE experts
    (
        "Low GPU usage during inference (~25%) on 4 A100 80 GB with Meta-Llama-3.1-70B-Instruct and device_map auto",
        "https://github.com/huggingface/transformers/issues/33656",
        ("serving-engines-memory", "CPU 与 GPU 混合推理"),
    ),
    # our own casual phrasings
    ("3张T4跑glm4v推理一张图要一分钟 太慢了咋整", "own", ("serving-engines-memory", "CPU 与 GPU 混合推理")),
    ("internvl 图片太大爆显存了 max_pixels 设多少", "own", ("vision-audio-memory", "Whisper")),
    ("内存从32g加到64g训练会变快吗", "own", ("framework-errors", "Windows 上新卡比旧卡慢")),
    ("does adding more system RAM make my LoRA training faster", "own", ("framework-errors", "Windows 上新卡比旧卡慢")),
    ("minicpm-v 能在手机上跑吗", "own", ("lora-qlora", "LoRA 的原理")),
    ("llama 7b 推理 4090 很慢 每秒几个token", "own", ("serving-engines-memory", "CPU 与 GPU 混合推理")),
]


@pytest.mark.parametrize(("question", "url", "banned"), MUST_NOT_ANSWER, ids=[q[:40] for q, _, _ in MUST_NOT_ANSWER])
def test_section_about_another_subject_does_not_answer(search, question, url, banned):
    hits = _answering(search(question, k=4))
    assert not any(d == banned[0] and s.startswith(banned[1]) for d, s in hits), (url, hits)


# (question, source, doc whose section must be among the answering hits, heading prefix)
MUST_LEAD = [
    # the max_pixels section is about Qwen-VL image tokens: it leads a Qwen-VL OOM question
    (
        "Evaluation of Qwen2VL-7B OOM with batch_size 1; what does max_pixels do",
        "https://github.com/EvolvingLMMs-Lab/lmms-eval/issues/436",
        "vision-audio-memory",
        "图片越大 token 越多",
    ),
    # a speech question that names no model still reaches the Whisper section through its declared subject
    ("语音识别转写长音频要多少显存", "own", "vision-audio-memory", "Whisper"),
    ("ollama 跑 70b 很慢 GPU 只有 2% 内存占满", "own", "serving-engines-memory", "CPU 与 GPU 混合推理"),
    ("Windows 上 4090 训练 SDXL 比 3090 还慢，共享 GPU 内存一直在涨", "own", "framework-errors", "Windows"),
]


@pytest.mark.parametrize(("question", "url", "doc", "heading"), MUST_LEAD, ids=[q[:40] for q, _, _, _ in MUST_LEAD])
def test_section_about_the_question_answers(search, question, url, doc, heading):
    # its declared subject is in the question: not flagged, among the passages that answer
    hits = _answering(search(question, k=6))
    assert any(d == doc and s.startswith(heading) for d, s in hits), (url, hits)


def test_named_things_come_from_knowledge():
    from tools.retrieval.subjects import named

    # T4 (gpus.yaml), GLM (model catalog), Whisper (pipelines.yaml), KTransformers (cpus.yaml engine words)
    assert {"gpu:t4", "model:glm"} <= named("GLM-4v-9b 在 3张T4 上推理慢")
    assert "model:whisper" in named("Whisper 要多少显存", strict=True)
    assert "engine:ktransformers" in named("ktransformers 跑 671B")
    # an English heading's ordinary word is no model ("A four-step decision"), a plural card is the card
    assert named("A four-step decision", strict=True) == frozenset()
    assert "gpu:4090" in named("should I rent 4090s or an A100")


def test_kind_conflict_flags_and_unnamed_kind_only_demotes():
    from tools.retrieval.subjects import subject_check

    # heading about Whisper, question about Qwen: both models, different → another subject
    assert subject_check("qwen2.5-vl oom", {"model:qwen"}, {"model:whisper"}, None) == "other"
    # heading names a card, the question names only a model → after the others, not flagged
    assert subject_check("glm 推理慢", {"model:glm"}, {"gpu:t4"}, None) == "unnamed"
    # a question that names nothing keeps every section where it ranked
    assert subject_check("新手租卡要注意什么", set(), {"gpu:4090"}, None) == ""


def test_every_declared_subject_names_a_real_section():
    """An `about:` key that matches no heading would silently do nothing."""
    from tools.retrieval.corpus import load_guide, split_front_matter

    passages = load_guide(ROOT / "knowledge" / "guide")
    for path in sorted((ROOT / "knowledge" / "guide").glob("*.md")):
        meta, _ = split_front_matter(path.read_text(encoding="utf-8"))
        for key in meta.get("about") or {}:
            if key == "*":
                continue
            assert any(p.doc_id == meta["id"] and p.section.startswith(key) for p in passages), (path.name, key)


@pytest.mark.parametrize(
    "question, banned",
    [
        # the answer's first lines: neither the LoRA explainer nor the Windows fallback nor CPU offload
        ("我看了下模型有十多个G，这样也能在手机上跑么", r"LoRA（低秩适配）不改动原模型"),
        ("内存只有32g，加到64g训练能快点吗", r"Windows 驱动从 536.40"),
        ("3张T4跑glm4v推理一张图要一分钟 太慢了咋整", r"ktransformers、llama.cpp 这类"),
    ],
)
def test_answer_does_not_lead_with_an_off_subject_passage(question, banned):
    import re

    from assistant.offline import answer

    a, _ = answer(question)
    lead = a.text.split("<details>")[0]
    assert not re.search(banned, lead), lead[:300]


def test_no_passage_answer_says_so_first_and_says_what_the_tools_can_do():
    from assistant.offline import answer

    a, _ = answer("Can you book me a flight from Shanghai to Jinan?")
    first = a.text.strip().splitlines()[0]
    assert "no passage" in first
    assert "GPU" in a.text  # what the tools can do instead
    assert "Sources" not in a.text  # a flagged passage is no source
