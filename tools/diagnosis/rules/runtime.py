"""Software-stack blockers the renter can fix: container runtime, CUDA runtime errors, vLLM KV cache.

Sources: NVIDIA Container Toolkit install guide (`nvidia-ctk runtime configure`), NVIDIA Fabric
Manager user guide (CUDA error 802 on NVSwitch systems), CUDA runtime API error codes, vLLM engine
arguments (gpu_memory_utilization, max_model_len).
"""

from __future__ import annotations

from tools.diagnosis.rules.comms import _p2p_unsupported
from tools.diagnosis.rules.context import Ctx


def rules_container(c: Ctx) -> None:
    cr = c.p.get("container_runtime")
    if not cr:
        return
    ev = cr.events
    if "no_gpu_runtime" in ev or "runtime_unknown" in ev:
        c.add(
            "container_no_gpu_runtime",
            "warning",
            (
                "Docker 没有可用的 GPU 运行时：没装或没配置 NVIDIA Container Toolkit",
                "Docker has no GPU runtime: the NVIDIA Container Toolkit is missing or not configured",
            ),
            [ev.get("no_gpu_runtime") or ev["runtime_unknown"]],
            causes=[
                (
                    "宿主机没装 nvidia-container-toolkit，或装了但没注册到 dockerd",
                    "nvidia-container-toolkit is not installed on the host, or not registered with dockerd",
                )
            ],
            actions=[
                (
                    "在宿主机装 nvidia-container-toolkit，然后 `sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker`；先确认宿主机 `nvidia-smi` 正常。没有宿主机权限就请服务商装。",
                    "Install nvidia-container-toolkit on the host, then `sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker`; check `nvidia-smi` works on the host first. Without host access, ask the provider to install it.",
                )
            ],
        )
    elif "nvml_lib_missing" in ev or "driver_not_loaded" in ev:
        c.add(
            "container_driver_libs_missing",
            "warning",
            (
                "容器运行时找不到宿主机的 NVIDIA 驱动库（libnvidia-ml.so.1）",
                "The container runtime cannot find the host's NVIDIA driver library (libnvidia-ml.so.1)",
            ),
            [ev.get("nvml_lib_missing") or ev["driver_not_loaded"]],
            causes=[
                (
                    "宿主机没装 NVIDIA 驱动、驱动没加载，或库不在 ldconfig 路径里",
                    "The host has no NVIDIA driver, it is not loaded, or its libraries are not on the ldconfig path",
                )
            ],
            actions=[
                (
                    "先在宿主机跑 `nvidia-smi`：不工作就先装/加载驱动（装好后 `ldconfig`）；驱动正常再重装 nvidia-container-toolkit。",
                    "Run `nvidia-smi` on the host first: if it fails, install/load the driver (then `ldconfig`); once the driver works, reinstall nvidia-container-toolkit.",
                )
            ],
        )
    elif "cuda_requirement" in ev:
        c.add(
            "container_cuda_requirement",
            "warning",
            (
                f"镜像要求 CUDA ≥ {cr.cuda_required}，宿主机驱动太旧",
                f"The image requires CUDA ≥ {cr.cuda_required}; the host driver is too old",
            ),
            [ev["cuda_requirement"]],
            actions=[
                (
                    "换一个 CUDA 版本不高于驱动支持的镜像（看宿主机 nvidia-smi 右上角），或请服务商升级驱动。",
                    "Use an image whose CUDA is not newer than the driver supports (top right of the host's nvidia-smi), or ask the provider to upgrade the driver.",
                )
            ],
        )


def rules_cuda_runtime(c: Ctx) -> None:
    cu = c.p.get("cuda_runtime")
    if not cu:
        return
    ev = cu.events
    if "system_not_ready" in ev:
        c.add(
            "fabric_manager_not_running",
            "warning",
            (
                "CUDA 错误 802（system not yet initialized）：NVSwitch 机器上 Fabric Manager 没有运行",
                "CUDA error 802 (system not yet initialized): Fabric Manager is not running on this NVSwitch machine",
            ),
            [ev["system_not_ready"]],
            causes=[
                (
                    "HGX A100/H100/H200/B200 等 NVSwitch 机型必须运行与驱动同版本的 nvidia-fabricmanager，CUDA 才能初始化",
                    "NVSwitch systems (HGX A100/H100/H200/B200) need nvidia-fabricmanager of the driver's exact version running before CUDA can start",
                )
            ],
            actions=[
                (
                    "装与驱动同版本的 nvidia-fabricmanager 并启动：`sudo systemctl enable --now nvidia-fabricmanager`，再用 `systemctl status nvidia-fabricmanager` 确认；容器/无 root 就请服务商在宿主机上做。",
                    "Install nvidia-fabricmanager matching the driver version and start it: `sudo systemctl enable --now nvidia-fabricmanager`, then check `systemctl status nvidia-fabricmanager`; in a container or without root, ask the provider to do it on the host.",
                )
            ],
        )
    if "peer_access_unsupported" in ev and not c.has("nccl_p2p_unsupported"):
        _p2p_unsupported(c, [ev["peer_access_unsupported"]])
    if "forward_compat_unsupported" in ev:
        c.add(
            "cuda_forward_compat_unsupported",
            "warning",
            (
                "CUDA 错误 804：在不支持的显卡上用了 CUDA 前向兼容包（cuda-compat）",
                "CUDA error 804: the CUDA forward-compatibility package was used on a GPU that does not support it",
            ),
            [ev["forward_compat_unsupported"]],
            actions=[
                (
                    "去掉镜像里的 cuda-compat（LD_LIBRARY_PATH 中的 /usr/local/cuda/compat），或换与驱动匹配的 CUDA 版本镜像。",
                    "Drop cuda-compat from the image (/usr/local/cuda/compat in LD_LIBRARY_PATH), or use an image whose CUDA matches the driver.",
                )
            ],
        )

    if "no_device" in ev and not c.has("no_gpus_visible"):
        # CUDA error 100 (cudaErrorNoDevice): this process sees no GPU at all (CUDA runtime API docs)
        c.add(
            "cuda_no_device",
            "warning",
            (
                "CUDA 报「no CUDA-capable device is detected」：这个进程一张 GPU 都看不到",
                "CUDA says 'no CUDA-capable device is detected': this process sees no GPU at all",
            ),
            [ev["no_device"]],
            causes=[
                (
                    "CUDA_VISIBLE_DEVICES 为空、为 -1，或列的编号不存在（编号从 0 到卡数−1）",
                    "CUDA_VISIBLE_DEVICES is empty, -1, or lists ids that do not exist (ids run 0 to count−1)",
                ),
                (
                    "容器启动时没加 `--gpus`，或驱动没加载（宿主机 nvidia-smi 也不工作）",
                    "The container was started without `--gpus`, or the driver is not loaded (nvidia-smi fails on the host too)",
                ),
            ],
            actions=[
                (
                    "先 `echo $CUDA_VISIBLE_DEVICES` 和 `nvidia-smi -L`：只列存在的编号（如 `CUDA_VISIBLE_DEVICES=0,1,2`），容器要加 `--gpus all`；nvidia-smi 也看不到卡就是驱动问题。",
                    "Run `echo $CUDA_VISIBLE_DEVICES` and `nvidia-smi -L`: list only ids that exist (e.g. `CUDA_VISIBLE_DEVICES=0,1,2`), start containers with `--gpus all`; if nvidia-smi sees no GPU either, it is the driver.",
                )
            ],
        )


def rules_vllm(c: Ctx) -> None:
    v = c.p.get("vllm")
    if not v or not v.kv_cache_starved:
        return
    weights = f"，模型权重 {v.weights_gb:g} GB" if v.weights_gb else ""
    weights_en = f"; the weights take {v.weights_gb:g} GB" if v.weights_gb else ""
    if v.budget and v.profile:  # the profiling lines: the whole budget and what took it, as vLLM printed them
        (total, util, budget), (w, other, act, kv) = v.budget, v.profile
        weights = (
            f"：预算 {total:.2f} GiB × {util:g} = {budget:.2f} GiB，权重 {w:.2f} GiB、激活峰值 {act:.2f} GiB、"
            f"PyTorch 之外 {other:.2f} GiB，留给 KV cache 的只有 {kv:.2f} GiB"
        )
        weights_en = (
            f": budget {total:.2f} GiB × {util:g} = {budget:.2f} GiB; weights {w:.2f} GiB, activation peak "
            f"{act:.2f} GiB, non-PyTorch {other:.2f} GiB leave {kv:.2f} GiB for the KV cache"
        )
    m = c.serving
    if m is not None and m.kv_gb and m.max_len_kv_gb and not v.profile:  # "max seq len (A) > tokens in KV (B)"
        weights = f"：KV cache 只放得下 {m.kv_tokens:,} token（{m.kv_gb:g} GB），一条 {m.max_model_len:,} token 的序列要 {m.max_len_kv_gb:g} GB"
        weights_en = (
            f": the KV cache holds {m.kv_tokens:,} tokens ({m.kv_gb:g} GB), one sequence of {m.max_model_len:,} "
            f"tokens needs {m.max_len_kv_gb:g} GB"
        )
    title = (f"vLLM 没有显存留给 KV cache{weights}", f"vLLM has no memory left for the KV cache{weights_en}")
    if m is not None and m.kv_tokens and m.max_model_len and m.max_model_len > m.kv_tokens and not v.profile:
        # "max seq len (A) is larger than ... KV cache (B)": the pool exists, it is smaller than one full-length
        # request; say it with the user's own two numbers
        title = (
            f"vLLM 的 KV cache 只放得下 {m.kv_tokens:,} 个 token，比模型的最大长度 {m.max_model_len:,} 小{weights if m.kv_gb else ''}"
            f"：把 `--max-model-len` 设到 {m.kv_tokens:,} 以下，或调高 `--gpu-memory-utilization` 给 KV 更多显存",
            f"vLLM's KV cache holds only {m.kv_tokens:,} tokens, fewer than the model's maximum length of "
            f"{m.max_model_len:,}{weights_en if m.kv_gb else ''}: set `--max-model-len` to at most {m.kv_tokens:,}, "
            "or raise `--gpu-memory-utilization` to give the KV cache more memory",
        )
    c.add(
        "vllm_no_kv_cache_memory",
        "warning",
        title,
        [x for x in (v.blocks_line, v.no_cache_line, v.max_len_line, v.profile_line) if x],
        causes=[
            (
                "权重 + 激活峰值已接近 gpu_memory_utilization × 显存，或别的进程占了显存",
                "Weights plus the activation peak already reach gpu_memory_utilization × memory, or another process holds memory",
            )
        ],
        actions=[
            (
                "没有别的进程占卡时调高 `--gpu-memory-utilization`（如 0.9–0.95），并调小 `--max-model-len` / `--max-num-seqs` / `--max-num-batched-tokens`；权重本身接近显存就用 `--tensor-parallel-size` 多卡切分、量化模型或换更小的模型。",
                "If nothing else uses the GPU, raise `--gpu-memory-utilization` (e.g. 0.9–0.95) and lower `--max-model-len` / `--max-num-seqs` / `--max-num-batched-tokens`; if the weights alone nearly fill the card, shard with `--tensor-parallel-size`, use a quantised model or a smaller model.",
            )
        ],
    )
