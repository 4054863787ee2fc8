"""A training run's time at the user's own measured speed. Expected values are hand-worked from the question's own
figures (tokens ÷ tokens per second ÷ 3600; 6·N·D for the FLOPs)."""

from __future__ import annotations

from assistant.advisor import ask
from assistant.offline.intents import plan
from assistant.offline.reading.run_figures import measured_token_rate
from tools.train_time import TrainTimeInput, estimate_training_time

# https://github.com/sanyalsunny111/LLM-Inheritune/issues/4 ("Hyper-parameters are inconsistent with Table 8")
INHERITUNE = (
    "In my experience, it is hard to train a 1.5B model on 1B tokens in 8 hours. When I run the code in a L40 48G GPU, "
    "it takes 37.8 seconds to run 100 iterations, which corresponds to 100 * 4096 = 409,600 tokens. So I think the "
    "1B * 8 epoches = 8B tokens will use much more times to run than 8 hours. Do I misunderstanding anything?"
)


def test_measured_rate_is_read_from_steps_timed_and_tokens() -> None:
    assert round(measured_token_rate(INHERITUNE) or 0) == 10836  # 409,600 tokens ÷ 37.8 s
    assert round(measured_token_rate("100步用了37.8秒，每步4096个token") or 0) == 10836
    assert measured_token_rate("2.5 it/s，4096 tokens per step") == 10240.0
    assert measured_token_rate("loss 一直不降，怎么办") is None


def test_tokens_times_epochs_is_the_run() -> None:
    call = next(c for c in plan(INHERITUNE) if c.name == "estimate_training_time")
    assert call.args["tokens"] == 1e9 and call.args["epochs"] == 8.0


def test_hours_at_the_measured_rate_and_the_claim_against_it() -> None:
    est = estimate_training_time(
        TrainTimeInput(
            params_b=1.5, tokens=1e9, epochs=8, gpu="L40", measured_tokens_per_s=409_600 / 37.8, claimed_hours=8
        )
    )
    assert est.flops == 7.2e19  # 6 × 1.5e9 × 8e9
    assert est.hours_at_measured_rate == 205.0  # 8e9 × 37.8 / 409,600 / 3600 = 205.1 h
    assert est.claimed_speedup == 25.6  # 8e9 / (8 × 3600) = 277,778 tokens/s ÷ 10,836
    assert est.measured_mfu is not None and 0.5 < est.measured_mfu < 0.58  # 6·N·rate / 181 TFLOPS dense ≈ 0.54


def test_the_answer_leads_with_the_measured_speed() -> None:
    r = ask(INHERITUNE, backend="offline")
    first = r.answer.splitlines()[0]
    assert "205 hours" in first and "10,836 tokens/s" in first
    assert "25.6×" in r.answer
    assert "Against your measured 8 hours" not in r.answer  # the 8 hours are the paper's claim, not the user's run


def test_a_rate_past_the_cards_peak_is_called_impossible() -> None:
    r = ask("7B模型全量微调，8张A100，100步用了60秒，每步 262144 个token，总共 20B token 要多久", backend="offline")
    # 262,144 × 100 / 60 = 436,907 tokens/s; 6 × 7e9 × that ÷ (8 × 312 TFLOPS) ≈ 7.4 × the peak
    assert "不可能" in r.answer


def test_no_model_size_still_reads_the_measured_speed_and_judges_no_mfu() -> None:
    # 1.8 it/s × 16,384 tokens per step = 29,491 tokens/s; 2e9 ÷ 29,491 ÷ 3600 = 18.8 h (hand-worked)
    r = ask("4张3090做LoRA，1.8 it/s，每步 16384 tokens，一共 2B token，跑完要多久", backend="offline")
    first = r.answer.splitlines()[0]
    assert "18.8 小时" in first and "29,491" in first
    assert "不可能" not in r.answer and "MFU" in r.answer  # an assumed 7B cannot make a LoRA speed "impossible"
    assert "16384" not in (r.answer.split("没用上：")[1] if "没用上：" in r.answer else "")
