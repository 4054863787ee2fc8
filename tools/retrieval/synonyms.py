"""Query expansion: colloquial Chinese, English and typo-prone phrasings → the corpus's words.

Each group lists trigger phrases (matched as substrings of the normalised query) and the terms
appended to the query when one matches. Kept small and topical on purpose: a group should
name one problem, so expansion sharpens the ranking instead of blurring it.
"""

from __future__ import annotations

import re
import unicodedata

# (triggers, added terms)
GROUPS: list[tuple[tuple[str, ...], str]] = [
    (
        (
            "掉卡",
            "丢卡",
            "卡掉",
            "卡没了",
            "少了一张",
            "少一张",
            "看不到卡",
            "识别不到",
            "认不到",
            "找不到卡",
            "卡不见",
            "fell off",
            "fallen off",
            "off the bus",
            "gpu lost",
            "lost gpu",
            "missing gpu",
            "gpu missing",
            "disappear",
            "no devices were found",
            "dropped gpu",
            "drops a gpu",
            "gpu dropped",
        ),
        "掉卡 fell off the bus Xid 79 dmesg",
    ),
    (
        ("温度", "过热", "高温", "降频", "overheat", "too hot", "temperature", "temps", "thermal", "throttl"),
        "温度 过热 降频 temperature thermal slowdown",
    ),
    (
        ("利用率", "util", "跑不满", "吃不满", "gpu空闲", "gpu 空闲", "卡空闲", "volatile", "gpu idle", "gpu 闲"),
        "GPU 利用率 utilization 低 瓶颈",
    ),
    (
        (
            "验收",
            "验货",
            "验卡",
            "以次充好",
            "租来的卡",
            "交付",
            "真假",
            "是不是真",
            "acceptance",
            "verify",
            "verif",
            "delivered",
            "delivery",
            "check the cards",
            "check the gpus",
            "假卡",
            "货不对板",
        ),
        "验收 交付 delivery acceptance nvidia-smi 以次充好",
    ),
    (
        (
            "两台",
            "2台",
            "二台",
            "双机",
            "多机",
            "多台",
            "两个节点",
            "two servers",
            "2 servers",
            "two nodes",
            "2 nodes",
            "multi-node",
            "multinode",
            "multi node",
            "跨机",
            "多节点",
            "two machines",
            "2 machines",
            "multiple machines",
            "multiple nodes",
        ),
        "多机 multi-node 两台 8卡 NCCL 网络",
    ),
    # launcher arguments (multi-node-training): what each machine sets, master_addr on one server
    (
        ("nnodes", "node_rank", "master_addr", "master_port", "main_process_ip", "machine_rank", "num_machines"),
        "torchrun nnodes node_rank master_addr master_port 单机多卡 127.0.0.1 launcher 参数",
    ),
    # memory that looks full or larger than set (memory-looks-full)
    (
        (
            "占满",
            "占得很满",
            "吃满",
            "顶满",
            "吃光",
            "占光",
            "用满",
            "拉满",
            "设置的多",
            "设的多",
            "多两个g",
            "多2g",
            "多出",
            "memory_reserved",
            "memory_allocated",
            "empty_cache",
            "caching allocator",
            "缓存分配器",
            "不释放",
            "preallocat",
            "预分配",
            "uses all the memory",
            "uses all memory",
            "all the vram",
            "memory is full",
            "vram is full",
            "memory full",
        ),
        "显存 占满 缓存分配器 caching allocator reserved memory_allocated 预占 preallocate CUDA 上下文 context",
    ),
    # inference that takes minutes or hours per answer: weights offloaded to RAM or disk (serving-engines-memory)
    (
        (
            "一下午",
            "一上午",
            "一晚上",
            "半小时",
            "十几分钟",
            "几十分钟",
            "一个回答要",
            "回答一次要",
            "秒一个token",
            "秒/token",
            "per answer",
            "per response",
            "minutes to generate",
            "minutes per",
            "seconds per token",
            "s/token",
            "ollama ps",
        ),
        "推理慢 卸载 offload 放不下 device_map 内存 磁盘 slow inference",
    ),
    # stop versus release (billing-hourly-monthly)
    (
        (
            "关机",
            "停机",
            "释放",
            "还扣费",
            "还收费",
            "还计费",
            "还要钱",
            "still charged",
            "still be charged",
            "still billed",
            "still pay",
            "charge me",
            "stop the instance",
            "stopped instance",
            "stop an instance",
            "stop or idle",
            "idle instance",
            "terminate",
            "deallocat",
        ),
        "关机 停止 释放 stop terminate release 计费 billed 磁盘 disk",
    ),
    (
        ("网络", "组网", "network", "交换机", "switch", "网卡", " nic ", "infiniband", "rdma", "roce", " ib ", "ib网"),
        "网络 networking InfiniBand RoCE RDMA 带宽",
    ),
    (("万兆", "10g", "10gbe", "10 gbe", "10gb网", "十千兆"), "万兆 10G 10GbE 以太网 Ethernet"),
    (("千兆", "1g网", "1gbe", "1 gbe", "gigabit"), "千兆 1G 1GbE 管理网"),
    # generic: "how much" also asks about train tickets; see GENERIC below
    (
        (
            "多少钱",
            "价格",
            "租金",
            "费用",
            "价钱",
            "报价",
            "贵不贵",
            "便宜",
            "price",
            "cost",
            "how much",
            "pricing",
            "元/",
            "块钱",
            "一个月",
            "per month",
            "per hour",
            "每小时",
        ),
        "价格 租金 price rental 元",
    ),
    (
        ("包月", "按小时", "按量", "按时", "计费", "billing", "hourly", "monthly", "spot", "竞价", "抢占"),
        "计费 包月 按小时 billing hourly monthly",
    ),
    (("爆显存", "显存不够", "显存不足", "oom", "out of memory", "内存溢出"), "显存 OOM out of memory"),
    (
        ("推理", "部署", "serving", "inference", "vllm", "sglang", "并发", "kv cache", "kvcache", "kv缓存", "上线"),
        "推理 inference serving KV cache vLLM",
    ),
    (
        ("驱动", "driver", "cuda版本", "cuda 版本", "cuda version", "nvcc", "版本不匹配", "版本不对"),
        "驱动 driver CUDA 版本 version",
    ),
    (
        (
            "读盘",
            "iowait",
            "io瓶颈",
            "io 瓶颈",
            "i/o",
            "数据加载",
            "dataloader",
            "data loader",
            "小文件",
            "硬盘",
            "磁盘",
            "nvme",
            "num_workers",
            "存储",
            "storage",
        ),
        "存储 I/O storage 数据加载 iostat num_workers",
    ),
    (
        (
            "济南",
            "青岛",
            "山东",
            "shandong",
            "jinan",
            "qingdao",
            "机房",
            "数据中心",
            "data center",
            "datacenter",
            "延迟",
            "latency",
        ),
        "山东 济南 青岛 数据中心 延迟 Shandong",
    ),
    (
        (
            "国产",
            "特供",
            "中国版",
            "a800",
            "h800",
            "h20",
            "l20",
            "4090d",
            "5090d",
            "910b",
            "昇腾",
            "ascend",
            "出口管制",
            "export control",
            "china-only",
            "china only",
        ),
        "A800 H800 H20 L20 4090D 中国特供 China",
    ),
    (
        ("8bit", "8-bit", "8 bit", "bitsandbytes", "adafactor", "paged adam", "8位优化器", "优化器"),
        "优化器 optimizer 8-bit AdamW",
    ),
    (("fp8", "tf32", "bf16", "fp16", "精度", "precision", "transformer engine"), "精度 precision TF32 FP8 BF16"),
    (("zero", "fsdp", "offload", "卸载", "deepspeed", "zero3", "zero-3"), "ZeRO FSDP offload 卸载"),
    (("xid",), "Xid 错误 error"),
    (
        ("timeout", "timed out", "time out", "超时", "watchdog", "卡住不动", "hang"),
        "超时 timeout timeouts watchdog NCCL_DEBUG",
    ),
    (("nccl", "all_reduce", "allreduce", "busbw", "algbw", "nccl-tests"), "NCCL all_reduce busbw"),
    (("docker", "容器", "container", "shm", "ipc=host", "--gpus"), "容器 container docker shm"),
    (
        ("激活", "activation", "checkpointing", "重计算", "序列长度", "seq len", "sequence length", "上下文长度"),
        "激活 activation checkpointing 序列长度",
    ),
    (("nvlink", "sxm", "pcie", "nvswitch"), "PCIe SXM NVLink 互联"),
    # serving engines: each engine's own memory knobs (serving-engines-memory)
    (("ollama", "num_parallel", "open webui", "openwebui"), "Ollama OLLAMA_NUM_PARALLEL 并发 parallel"),
    (("sglang", "mem-fraction", "mem_fraction"), "SGLang mem_fraction_static 静态分配 KV 池 pre-allocate"),
    (
        (
            "gpu_memory_utilization",
            "gpu-memory-utilization",
            "kv cache memory",
            "max seq len",
            "max_model_len",
            "cache blocks",
            "no available memory",
        ),
        "gpu_memory_utilization 激活峰值 profile KV cache max_model_len",
    ),
    (("cpu_infer", "ktransformers", "numactl", "offload to cpu", "cpu offload"), "CPU 内存带宽 cpu_infer 混合推理"),
    (
        ("tensor-parallel", "tensor parallel", "tensor_parallel", "张量并行", "-tp ", "--tp"),
        "张量并行 tensor parallel 副本 replica 数据并行",
    ),
    # downloading models from China, rental platforms, containers (rental-platform-howto)
    (
        (
            "huggingface",
            "hugging face",
            "hf_endpoint",
            "被墙",
            "科学上网",
            "vpn",
            "下载模型",
            "下不了",
            "modelscope",
            "魔搭",
        ),
        "Hugging Face ModelScope 魔搭 hf-mirror HF_ENDPOINT 镜像 下载",
    ),
    (
        ("autodl", "租用", "租卡平台", "算力平台", "网站", "jupyter", "ssh", "端口", "port forward", "实例", "kaggle"),
        "AutoDL 实例 镜像 SSH JupyterLab 端口转发 数据盘 关机",
    ),
    (("vgpu", "mig", "切分", "虚拟", "容器内", "inside the container", "in a container"), "vGPU MIG 容器 显存 限额"),
    # driver not loaded (cuda-driver-compat)
    (
        ("nouveau", "couldn't communicate", "could not communicate", "nvrm", "驱动未加载", "lsmod", "secure boot"),
        "nouveau 驱动没加载 driver not loaded DKMS Secure Boot",
    ),
    # numerics and results (training-results-numerics)
    (("nan", "溢出", "overflow", "inf ", "65504"), "fp16 NaN 溢出 overflow 65504 bf16"),
    (
        ("loss不", "loss 不", "不收敛", "不下降", "震荡", "not converg", "loss not", "diverg"),
        "loss 不下降 收敛 TF32 TORCH_CUDA_ARCH_LIST 版本",
    ),
    (
        ("效果", "精度", "复现", "论文", "accuracy", "reproduc", "paper", "guarantee", "保证"),
        "效果 复现 论文 超参数 batch 随机种子 reproduce",
    ),
    # slow training (slow-training)
    (
        ("慢", "slow", "faster", "变慢", "速度", "throughput", "吞吐", "s/it", "it/s", "加速", "提速", "speed up"),
        "慢 slow 速度 数据加载 CPU 瓶颈 batch",
    ),
    (
        ("dataparallel", "device_map", "双卡", "cuda_visible_devices=0,1", "多卡"),
        "DataParallel DDP torchrun device_map 多卡",
    ),
    (("moe", "专家", "expert", "a14b", "a3b", "-lite", "mixtral"), "MoE 专家 expert 路由 routing"),
    (("ppo", "grpo", "rlhf", "强化学习", "rollout", "dpo", " rl "), "强化学习 PPO GRPO 生成 rollout vLLM"),
    (("降频", "throttl", "clock", "频率", "功耗墙", "power cap"), "降频 throttle PERFORMANCE 频率 功耗"),
    (("910b", "昇腾", "ascend", "npu", "cann"), "昇腾 910B Ascend torch_npu CANN 算子"),
    (
        ("多久", "多长时间", "训练时间", "how long", "gpu-hours", "gpu hours", "卡时", "mfu", "6nd"),
        "训练时间 training time GPU-hours MFU",
    ),
    # know-how of long runs (knowledge/guide/long-running-jobs.md)
    (
        (
            "ssh断",
            "ssh 断",
            "ssh一断",
            "断开ssh",
            "ssh掉",
            "ssh session",
            "ssh connection",
            "合上",
            "关掉终端",
            "后台跑",
            "后台运行",
            "tmux",
            "nohup",
            "screen -",
            "sighup",
        ),
        "SSH 断开 tmux nohup 后台 SIGHUP",
    ),
    (
        ("上次保存", "继续训", "接着训", "续训", "断点", "resume", "从头训", "重新训"),
        "断点续训 resume_from_checkpoint checkpoint 继续训练",
    ),
    # learning rate and batch across GPU counts (knowledge/guide/multi-gpu-scaling.md)
    (
        (" lr ", " lr要", "lr 要", "学习率", "learning rate", "learning-rate"),
        "学习率 learning rate 全局 batch 卡数 缩放",
    ),
]


# Groups whose triggers are everyday words: their added terms help ranking but do not, on their
# own, make a question on-topic (「北京到上海高铁多少钱」 is not about GPU rental).
GENERIC = frozenset({"价格 租金 price rental 元"})


# Shapes no substring can catch: a temperature reading ("89C", "95度", "85℃") asks about heat even when the
# word "temperature" is not said.
SHAPE_GROUPS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?<![\d.])\d{2,3}\s*(?:°\s*c|℃|度|c)(?![a-z])"), "温度 过热 降频 temperature thermal slowdown"),
]


def expand(query: str, domain_only: bool = False) -> str:
    """The query plus the added terms of every group it triggers (each group once).

    `domain_only` leaves out the GENERIC groups (used for the on-topic check in relevance).
    """
    text = f" {unicodedata.normalize('NFKC', query or '').lower()} "
    extra = [
        terms
        for triggers, terms in GROUPS
        if any(t in text for t in triggers) and not (domain_only and terms in GENERIC)
    ]
    extra += [terms for rx, terms in SHAPE_GROUPS if rx.search(text)]
    extra = list(dict.fromkeys(extra))
    return query if not extra else f"{query} {' '.join(extra)}"
