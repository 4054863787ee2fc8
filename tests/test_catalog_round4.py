"""Round-4 catalog rows: models users ask about that the catalog lacked (vision-language, MoE, hybrid attention,
encoders, older GPT-style decoders). Each name must resolve the way people write it, without stealing a
neighbour's name, and its parameter count must agree with the publisher's figure (URL beside each figure).
End-to-end asks (offline planner) use our own phrasings; the weights figure expected is params × bytes by hand."""

from __future__ import annotations

import re

import pytest

from tools.memory_kv import kv_bytes_per_token, kv_cache_bytes
from tools.models import count_params, find_entry, resolve_model, variant_of

# ---------------------------------------------------------------- names as people write them


@pytest.mark.parametrize(
    "query, expected",
    [
        # vision-language
        ("cogvlm-chat-hf", "CogVLM-17B"),
        ("CogVLM2 19B", "CogVLM2-19B"),
        ("cogvlm2-llama3-chinese-chat-19B", "CogVLM2-19B"),
        ("cogagent-9b-20241220", "CogAgent-9B"),
        ("CogAgent", "CogAgent-18B"),
        ("glm4v 9b", "GLM-4V-9B"),
        ("智谱 GLM-4V", "GLM-4V-9B"),
        ("GLM-4.1V-9B-Thinking", "GLM-4.1V-9B-Thinking"),
        ("deepseek vl2 small", "DeepSeek-VL2-Small"),
        ("deepseek-vl2-tiny", "DeepSeek-VL2-Tiny"),
        ("deepseek-ai/deepseek-vl-7b-chat", "DeepSeek-VL-7B"),
        ("书生·万象3.5-241B", "InternVL3.5-241B-A28B"),
        ("书生万象2.5 38B", "InternVL2.5-38B"),
        ("OpenGVLab/InternVL3_5-241B-A28B", "InternVL3.5-241B-A28B"),
        ("internvl3 8b", "InternVL3-8B"),
        ("InternVL2_5-78B-MPO", "InternVL2.5-78B"),
        ("internvl-chat-v1-5", "InternVL-Chat-V1.5"),
        ("llava-v1.5-7b", "LLaVA-1.5-7B"),
        ("llava-v1.6-mistral-7b-hf", "LLaVA-1.6-Mistral-7B"),
        ("llama3.2-vision:90b", "Llama-3.2-90B-Vision"),
        ("Qwen2-VL-2B-Instruct", "Qwen2-VL-2B"),
        ("qwen3 vl 30b", "Qwen3-VL-30B-A3B"),
        ("Qwen3-VL-235B-A22B-Instruct-FP8", "Qwen3-VL-235B-A22B"),
        ("minicpm-v 4.5", "MiniCPM-V-4.5"),
        ("phi3 vision", "Phi-3-vision"),
        ("pixtral-12b-2409", "Pixtral-12B"),
        ("deepseek ocr", "DeepSeek-OCR"),
        ("minicpm-o 2.6", "MiniCPM-o-2.6"),
        # text models
        ("chatglm-6b", "ChatGLM-6B"),
        ("glm6b", "ChatGLM-6B"),
        ("llama v2 70b", "Llama-2-70B"),
        ("deepseek-r1-qwen-distill-32b", "DeepSeek-R1-Distill-Qwen-32B"),
        ("deepseek v3.2", "DeepSeek-V3.2"),
        ("DeepSeek-V3.2-Exp", "DeepSeek-V3.2"),
        ("qwen3 next 80b a3b", "Qwen3-Next-80B-A3B"),
        ("minimax m2", "MiniMax-M2"),
        ("MiniMax-Text-01", "MiniMax-M1"),
        ("腾讯混元A13B", "Hunyuan-A13B"),
        ("Tencent-Hunyuan-Large", "Hunyuan-Large"),
        ("文心4.5-21B", "ERNIE-4.5-21B-A3B"),
        ("ERNIE-4.5-300B-A47B-Paddle", "ERNIE-4.5-300B-A47B"),
        ("Seed-OSS-36B-Instruct", "Seed-OSS-36B"),
        ("天工13B", "Skywork-13B"),
        ("internlm-chat-20b", "InternLM-20B"),
        ("百川M2 32B", "Baichuan-M2-32B"),
        ("starcoder2 15b", "StarCoder2-15B"),
        ("starcoderbase", "StarCoder-15B"),
        ("CodeQwen1.5-7B-Chat", "CodeQwen1.5-7B"),
        ("bloomz-7b1-mt", "BLOOM-7B1"),
        ("gpt-j-6b", "GPT-J-6B"),
        ("gpt-neox-20b", "GPT-NeoX-20B"),
        ("pythia-6.9b-deduped", "Pythia-6.9B"),
        ("gpt2-xl", "GPT-2-XL"),
        ("bert-base-chinese", "BERT-base-Chinese"),
        ("chinese-roberta-wwm-ext-large", "BERT-large-Chinese"),
        ("bge-large-zh-v1.5", "BERT-large-Chinese"),
        ("BAAI/bge-m3", "BGE-M3"),
        ("bge-reranker-v2-m3", "BGE-reranker-v2-m3"),
        ("chinese-alpaca-2-13b", "Chinese-Alpaca-2-13B"),
    ],
)
def test_names_resolve(query: str, expected: str) -> None:
    assert variant_of(query).model_id == expected
    m = resolve_model(query)
    assert m.name == expected and m.kind == "catalog" and m.unknown_name is None


@pytest.mark.parametrize(
    "query, expected",
    [
        # a new alias must not steal its neighbour's name (nor the neighbour steal it)
        ("deepseek-vl2-small", "DeepSeek-VL2-Small"),
        ("deepseek-v2", "DeepSeek-V2"),
        ("deepseek v2 lite", "DeepSeek-V2-Lite"),
        ("glm-4-9b", "GLM-4-9B"),
        ("glm-4v-9b", "GLM-4V-9B"),
        ("chatglm2-6b", "ChatGLM2-6B"),
        ("chatglm3-6b", "ChatGLM3-6B"),
        ("qwen3-30b-a3b", "Qwen3-30B-A3B"),
        ("qwen3-vl-30b-a3b", "Qwen3-VL-30B-A3B"),
        ("qwen3-vl-8b", "Qwen3-VL-8B"),
        ("qwen3-8b", "Qwen3-8B"),
        ("qwen-7b-chat", "Qwen-7B"),
        ("qwen2-vl-7b", "Qwen2-VL-7B"),
        ("internvl3-8b", "InternVL3-8B"),
        ("internvl3.5-8b", "InternVL3.5-8B"),
        ("internvl2.5-8b", "InternVL2.5-8B"),
        ("internvl2-8b", "InternVL2-8B"),
        ("internlm2.5-20b", "InternLM2.5-20B"),
        ("internlm-20b", "InternLM-20B"),
        ("llama-3.2-3b", "Llama-3.2-3B"),
        ("llama-3.2-11b-vision", "Llama-3.2-11B-Vision"),
        ("starcoder2-3b", "StarCoder2-3B"),
        ("bloom-1b7", "BLOOM-1B7"),
        ("deepseek-v3.1", "DeepSeek-V3.1"),
        ("glm-4.5-air", "GLM-4.5-Air"),
        ("GLM-4.5V", "GLM-4.5V"),
    ],
)
def test_neighbours_keep_their_names(query: str, expected: str) -> None:
    assert variant_of(query).model_id == expected


def test_bare_family_words_do_not_name_one_model() -> None:
    # gpt2-ml is a 1.5B Chinese model (https://github.com/imcaspar/gpt2-ml): no bare "gpt2" row may swallow it;
    # "Qwen-VL" (and 「千问-VL」, which normalises to it) is the v1 model (9.6B): round-7 users wrote it for
    # Qwen-VL / Qwen-VL-Chat four times out of four, and Qwen2-VL users write the 2, so it now has a catalog row.
    for name in ("gpt2-ml", "internvl", "glm", "qwen3", "cogvlm3"):
        assert find_entry(name) is None, name


def test_chat_reader_finds_the_new_names_in_a_sentence() -> None:
    from assistant.offline.reading.vocab import find_models

    text = "我有两张4090，想跑书生·万象3.5-241B或者 deepseek-vl2-small，还有 cogvlm2 19b 和腾讯混元A13B"
    assert [h.catalog_id for h in find_models(text)] == [
        "InternVL3.5-241B-A28B",
        "DeepSeek-VL2-Small",
        "CogVLM2-19B",
        "Hunyuan-A13B",
    ]


# ---------------------------------------------------------------- counts against the publishers' figures

_B = 1e9


@pytest.mark.parametrize(
    "model_id, published_b, url",
    [
        # "CogVLM-17B has 10 billion vision parameters and 7 billion language parameters"
        ("CogVLM-17B", 17.0, "https://huggingface.co/THUDM/cogvlm-chat-hf"),
        ("CogAgent-18B", 18.0, "https://huggingface.co/THUDM/cogagent-chat-hf"),
        ("CogVLM2-19B", 19.0, "https://huggingface.co/THUDM/cogvlm2-llama3-chat-19B"),
        ("GLM-4V-9B", 13.9, "https://huggingface.co/THUDM/glm-4v-9b"),
        ("ChatGLM-6B", 6.2, "https://huggingface.co/THUDM/chatglm-6b"),  # 「具有 62 亿参数」
        # DeepSeek-VL2 paper, arXiv 2412.10302: Tiny 3.37B, Small 16.1B, VL2 27.5B total
        ("DeepSeek-VL2-Tiny", 3.37, "https://arxiv.org/abs/2412.10302"),
        ("DeepSeek-VL2-Small", 16.1, "https://arxiv.org/abs/2412.10302"),
        ("DeepSeek-VL2", 27.5, "https://arxiv.org/abs/2412.10302"),
        # InternVL model cards' tables (vision + language = total)
        ("InternVL2.5-38B", 38.4, "https://huggingface.co/OpenGVLab/InternVL2_5-38B"),
        ("InternVL2.5-78B", 78.4, "https://huggingface.co/OpenGVLab/InternVL2_5-78B"),
        ("InternVL3.5-8B", 8.5, "https://huggingface.co/OpenGVLab/InternVL3_5-8B"),
        ("InternVL3.5-241B-A28B", 240.7, "https://huggingface.co/OpenGVLab/InternVL3_5-241B-A28B"),
        ("LLaVA-1.5-7B", 7.06, "https://huggingface.co/llava-hf/llava-1.5-7b-hf"),
        ("LLaVA-1.6-34B", 34.8, "https://huggingface.co/llava-hf/llava-v1.6-34b-hf"),
        ("Llama-3.2-11B-Vision", 10.7, "https://huggingface.co/meta-llama/Llama-3.2-11B-Vision-Instruct"),
        ("Llama-3.2-90B-Vision", 88.6, "https://huggingface.co/meta-llama/Llama-3.2-90B-Vision-Instruct"),
        ("Qwen2-VL-2B", 2.21, "https://huggingface.co/Qwen/Qwen2-VL-2B-Instruct"),
        ("Phi-3-vision", 4.2, "https://huggingface.co/microsoft/Phi-3-vision-128k-instruct"),
        # "12B parameter multimodal decoder + 400M parameter vision encoder"
        ("Pixtral-12B", 12.4, "https://mistral.ai/news/pixtral-12b"),
        ("Hunyuan-A13B", 80.0, "https://huggingface.co/tencent/Hunyuan-A13B-Instruct"),
        ("Hunyuan-Large", 389.0, "https://arxiv.org/abs/2411.02265"),
        ("ERNIE-4.5-300B-A47B", 300.0, "https://huggingface.co/baidu/ERNIE-4.5-300B-A47B-PT"),
        ("ERNIE-4.5-0.3B", 0.36, "https://huggingface.co/baidu/ERNIE-4.5-0.3B-PT"),
        ("MiniMax-M1", 456.0, "https://huggingface.co/MiniMaxAI/MiniMax-M1-80k"),
        ("MiniMax-M2", 230.0, "https://huggingface.co/MiniMaxAI/MiniMax-M2"),
        ("Qwen3-Next-80B-A3B", 80.0, "https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct"),
        ("Seed-OSS-36B", 36.0, "https://huggingface.co/ByteDance-Seed/Seed-OSS-36B-Instruct"),
        # 671B main model + 14B MTP module = 685B on the Hub; the catalog counts the main model
        ("DeepSeek-V3.2", 671.0, "https://huggingface.co/deepseek-ai/DeepSeek-V3.2-Exp"),
        ("StarCoder-15B", 15.5, "https://huggingface.co/bigcode/starcoder"),
        ("GPT-NeoX-20B", 20.6, "https://huggingface.co/EleutherAI/gpt-neox-20b"),
        ("CodeQwen1.5-7B", 7.25, "https://huggingface.co/Qwen/CodeQwen1.5-7B-Chat"),
        ("BGE-M3", 0.568, "https://huggingface.co/BAAI/bge-m3"),
    ],
)
def test_totals_match_the_published_figure(model_id: str, published_b: float, url: str) -> None:
    m = resolve_model(model_id)
    assert m.params / _B == pytest.approx(published_b, rel=0.03), url


@pytest.mark.parametrize(
    "model_id, exact",
    [
        ("BLOOM-560M", 559_214_592),  # https://huggingface.co/bigscience/bloom-560m (safetensors metadata)
        ("BLOOM-176B", 176_247_271_424),  # https://huggingface.co/bigscience/bloom model card: 176,247,271,424
        ("Pythia-1.4B", 1_414_647_808),  # Pythia paper, arXiv 2304.01373, Table 1
        ("Pythia-12B", 11_846_072_320),  # idem
        ("GPT-2-XL", 1_557_611_200),  # https://huggingface.co/openai-community/gpt2-xl (safetensors metadata)
        ("BERT-base", 109_482_240),  # https://huggingface.co/google-bert/bert-base-uncased (safetensors metadata)
        # Llama-2-7B 6,738,415,616 + (55,296 − 32,000) × 4,096 × 2 (embedding and LM head) = 6,929,256,448
        ("Chinese-Alpaca-2-7B", 6_929_256_448),
    ],
)
def test_exact_counts(model_id: str, exact: int) -> None:
    assert resolve_model(model_id).params == exact


@pytest.mark.parametrize(
    "model_id, total_b, active_b, url",
    [
        ("Hunyuan-A13B", 80, 13, "https://huggingface.co/tencent/Hunyuan-A13B-Instruct"),
        ("Hunyuan-Large", 389, 52, "https://arxiv.org/abs/2411.02265"),
        ("ERNIE-4.5-300B-A47B", 300, 47, "https://huggingface.co/baidu/ERNIE-4.5-300B-A47B-PT"),
        ("MiniMax-M1", 456, 45.9, "https://huggingface.co/MiniMaxAI/MiniMax-M1-80k"),
        ("InternVL3.5-241B-A28B", 240.7, 28.7, "https://huggingface.co/OpenGVLab/InternVL3_5-241B-A28B"),
        # DeepSeek-VL2-Small: "2.8B activated" of 16.1B (arXiv 2412.10302)
        ("DeepSeek-VL2-Small", 16.1, 2.8, "https://arxiv.org/abs/2412.10302"),
    ],
)
def test_moe_total_and_active(model_id: str, total_b: float, active_b: float, url: str) -> None:
    """Publishers round the active figure and some leave embeddings out of it: within 12%; the total within 3%.
    The point for a user: memory needs the total (every expert), not the active count."""
    m = resolve_model(model_id)
    assert m.arch.is_moe
    assert m.params / _B == pytest.approx(total_b, rel=0.03), url
    assert m.active_params / _B == pytest.approx(active_b, rel=0.12), url
    assert m.params > 4 * m.active_params


def test_vision_language_decoders_are_their_base_llms() -> None:
    """A VL row's decoder is the base LLM's config.json: its count equals the catalog's base row (the vision
    tower is extra_params on top)."""
    pairs = [
        ("InternVL3.5-241B-A28B", "Qwen3-235B-A22B"),
        ("DeepSeek-VL2-Small", "DeepSeek-V2-Lite"),
        ("Qwen3-VL-30B-A3B", "Qwen3-30B-A3B"),
        ("MiniCPM-V-4.5", "Qwen3-8B"),
        ("LLaVA-1.6-Mistral-7B", "Mistral-7B-v0.2"),
    ]
    for vl, base in pairs:
        a, b = resolve_model(vl).arch, resolve_model(base).arch
        assert a.extra_params > 0
        decoder, llm = count_params(a).total, count_params(b).total
        assert decoder == pytest.approx(llm, rel=0.01), (vl, base)  # vocab differs by a few added tokens


# ---------------------------------------------------------------- KV cache of hybrid models


def test_only_layers_that_keep_a_cache_count() -> None:
    # Qwen3-Next: 12 gated-attention layers of 48 (full_attention_interval 4), 2 KV heads × 256, bf16:
    # 12 × 2 × 2 × 256 × 2 B = 24,576 B per token
    qn = resolve_model("Qwen3-Next-80B-A3B").arch
    assert kv_bytes_per_token(qn, 2.0) == 24_576
    # at its native 262,144-token context, one sequence: 24,576 × 262,144 = 6.44 GB (not 4× that)
    assert kv_cache_bytes(qn, 262_144, 1, 2.0) == pytest.approx(6.442e9, rel=1e-3)
    # MiniMax-M1: 10 softmax layers of 80, 8 KV heads × 128: 10 × 2 × 8 × 128 × 2 B = 40,960 B
    assert kv_bytes_per_token(resolve_model("MiniMax-M1").arch, 2.0) == 40_960
    # Hunyuan-Large: cross-layer attention shares KV between pairs: 32 × 2 × 8 × 80 × 2 B = 81,920 B
    assert kv_bytes_per_token(resolve_model("Hunyuan-Large").arch, 2.0) == 81_920
    # a plain model is unchanged: Llama-2-7B fp16 2 × 32 heads × 128 × 2 B × 32 layers = 524,288 B (vLLM paper)
    assert kv_bytes_per_token(resolve_model("Llama-2-7B").arch, 2.0) == 524_288


# ---------------------------------------------------------------- end to end, our own phrasings

_GB = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*GB(?!/)")


def _gb_figures(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in _GB.findall(text)]


@pytest.mark.parametrize(
    "question, model_id, weights_gb",
    [
        # 19e9 × 2 B (fp16) = 38 GB
        ("cogvlm2 19b 用fp16推理大概吃多少显存？两张4090够不够", "CogVLM2-19B", 38.0),
        # 240.7e9 × 2 B = 481.4 GB
        ("想部署书生万象3.5 241B 做图片理解，要几张H100", "InternVL3.5-241B-A28B", 481.4),
        # 13.9e9 × 2 B = 27.8 GB: the "9B" is the language model only
        ("glm4v 9b 一张24G的卡能不能推理", "GLM-4V-9B", 27.8),
        # 16.1e9 × 2 B = 32.2 GB although only 2.8B are active
        ("deepseek vl2 small 3090 24g 推理跑得动吗", "DeepSeek-VL2-Small", 32.2),
        # 10.7e9 × 2 B = 21.4 GB
        ("how much vram for Llama-3.2-11B-Vision-Instruct inference in bf16?", "Llama-3.2-11B-Vision", 21.4),
        # 80e9 × 2 B = 160 GB
        ("Qwen3-Next-80B-A3B 用vllm部署要几张A100 80G", "Qwen3-Next-80B-A3B", 160.0),
        # 80e9 × 2 B = 160 GB: all 64 experts in memory
        ("腾讯混元A13B 部署要多大显存", "Hunyuan-A13B", 160.0),
        # 0.568e9 × 2 B = 1.14 GB
        ("bge-m3 做向量检索服务 显存要多少", "BGE-M3", 1.14),
        # 6.2e9 × 2 B = 12.4 GB frozen base
        ("chatglm-6b 做lora微调，16g显卡够吗", "ChatGLM-6B", 12.4),
        # 38.4e9 × 2 B = 76.8 GB
        ("internvl2.5-38b 两张 4090 能跑吗", "InternVL2.5-38B", 76.8),
    ],
)
def test_chat_sizes_the_model_by_name(question: str, model_id: str, weights_gb: float) -> None:
    from assistant.advisor import ask

    answer = ask(question, backend="offline").answer
    assert model_id in answer
    assert "不在模型目录" not in answer and "not in the model catalog" not in answer
    assert any(abs(v - weights_gb) <= 0.03 * weights_gb + 0.05 for v in _gb_figures(answer)), _gb_figures(answer)
