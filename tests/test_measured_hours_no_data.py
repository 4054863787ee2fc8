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


def test_no_per_epoch_line_when_the_epochs_were_not_said() -> None:
    # the estimate assumes 3 epochs for its example corpus; "80 ÷ 3 epochs" would present that guess as the user's
    r = ask("70B全量微调，8张A100，跑了80小时，正常吗", backend="offline")
    assert "个 epoch ≈ 每个 epoch" not in r.answer
    assert "判断不了这 80 小时是快是慢" in r.answer


def test_epochs_followed_by_chinese_are_read() -> None:
    from assistant.offline.reading import read_one

    assert read_one("70B的训练3个epoch要80h").epochs == 3.0  # 「要」 after the word used to block the match
    assert read_one("训练3轮要多久").epochs == 3.0
    assert read_one("第3轮训练loss变大").epochs is None  # which round, not how many
