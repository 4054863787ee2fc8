"""A run's measured hours with no data size: no slow/normal verdict against an example corpus, and the time per
epoch from the user's own figures.

https://github.com/JIA-Lab-research/LongLoRA/issues/66 (「70B的训练3个epoch要80h，请问怎么加速」; the maintainer
suggests one epoch). Hand-worked: 80 h ÷ 3 = 26.7 h per epoch.
"""

from __future__ import annotations

from assistant.advisor import ask
from tools.train_time import TrainTimeInput, estimate_training_time

QUESTION = (
    "我通过更换成ds_config/stage3.json解决了cpu oom的问题，但是训练速度太慢，70B的训练3个epoch要80h,请问怎么加速？"
)


def test_hours_per_epoch() -> None:
    est = estimate_training_time(
        TrainTimeInput(params_b=70, samples=10_000, seq_len=512, epochs=3, gpu="A100 80GB", measured_hours=80)
    )
    assert est.measured_hours_per_epoch == 26.7


def test_no_verdict_on_an_example_corpus() -> None:
    r = ask(QUESTION, backend="offline")
    assert r.answer.startswith("80 小时 ÷ 3 个 epoch ≈ 每个 epoch 26.7 小时")
    assert "不合理" not in r.answer and "偏慢" not in r.answer
    assert "判断不了" in r.answer


def test_with_the_data_said_the_verdict_stays() -> None:
    r = ask("7B全量微调，8张A100，10万条样本每条512 token，3个epoch跑了200小时，正常吗", backend="offline")
    assert "偏慢" in r.answer
