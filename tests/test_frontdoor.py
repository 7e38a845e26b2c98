"""The front-door benchmark's measurement (no GPU): kernel runs and warm calls alternate after a clock
warm-up, short calls get more pairs, each k-clique call is timed beside the counter it picks, and
``targets`` reads issue 24's ratios off a run."""

import pandas as pd
import pytest

from mce_kit import api, measure
from mce_kit.experiments import frontdoor


def _recorder(seconds_per_call: float, clock: list):
    log = []

    def kernel(G):
        log.append("kernel")
        return 7, 0.5

    def call(G):
        log.append("call")
        clock[0] += seconds_per_call
        return 7

    return log, kernel, call


@pytest.fixture
def fake_clock(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(frontdoor.time, "perf_counter", lambda: clock[0])   # (the one time module)
    return clock


def test_kernel_and_call_alternate_after_the_warm_up(fake_clock):
    log, kernel, call = _recorder(0.04, fake_clock)   # 40 ms a call: not short
    runs, times = frontdoor._alternated(kernel, call, None, repeats=5)
    warm_up = int(measure.CLOCK_WARMUP_S / 0.04) + 1
    assert log[:warm_up] == ["call"] * warm_up
    assert log[warm_up:] == ["kernel", "call"] * 5
    assert runs == [(7, 0.5)] * 5 and [a for a, _ in times] == [7] * 5
    assert all(ms == pytest.approx(40.0) for _, ms in times)


def test_short_calls_get_more_pairs(fake_clock):
    log, kernel, call = _recorder(0.0005, fake_clock)  # 0.5 ms
    runs, times = frontdoor._alternated(kernel, call, None, repeats=5)
    assert len(runs) == len(times) == frontdoor.SHORT_PAIRS
    assert log[-2:] == ["kernel", "call"]


def test_kernel_rows_alone_warm_up_on_the_kernel(fake_clock):
    calls = []

    def kernel(G):
        calls.append(1)
        fake_clock[0] += 0.08
        return 3, 100.0   # 100 ms: not short

    runs, times = frontdoor._alternated(kernel, None, None, repeats=5)
    assert times == [] and len(runs) == 5 and len(calls) == 5 + int(measure.CLOCK_WARMUP_S / 0.08) + 1


def test_each_k_clique_call_is_timed_beside_the_counter_it_picks():
    rows = {problem: kernel for problem, _, _, kernel, _ in frontdoor._problems(quick=False)}
    for k in frontdoor.KS:
        how = api.k_clique_algorithm(k)
        assert rows[f"kclique k={k}"] is rows[f"kclique_rule {how} k={k}"]


def test_targets_read_the_latest_run():
    df = pd.DataFrame({
        "problem": ["mce", "kclique k=4", "kclique_rule listing k=4", "mce"],
        "graph": ["a", "a", "a", "a"],
        "kernel_ms": [1.0, 1.0, 1.0, 1.0], "warm_ms": [1.1, 1.3, None, 5.0], "cold_ms": [2.2, 2.0, None, 5.0],
        "date": ["2026-11-28", "2026-11-28", "2026-11-28", "2026-11-27"]})
    t = frontdoor.targets(df)
    assert list(t["problem"]) == ["mce", "kclique k=4"]
    assert list(t["warm_ok"]) == [True, False] and list(t["cold_ok"]) == [True, True]
    assert list(t["family"]) == ["mce", "kclique"]


def test_cold_calls_time_each_call_on_a_fresh_copy_with_nothing_kept(fake_clock, monkeypatch):
    from mce_kit import prepared

    events = []
    monkeypatch.setattr(prepared, "release", lambda G=None: events.append("release"))
    copies = iter(range(100))

    def load():
        events.append("load")
        return next(copies)

    def call(G):
        events.append(("call", G))
        fake_clock[0] += 0.002 * (G + 1)
        return G * 10

    answers, ms, last = measure.cold_calls(call, load, 3, sync=lambda: events.append("sync"))
    assert events == ["release", "load", "sync", ("call", 0), "sync"] + \
        ["release", "load", "sync", ("call", 1), "sync", "release", "load", "sync", ("call", 2), "sync"]
    assert answers == [0, 10, 20] and last == 2 and ms == pytest.approx([2.0, 4.0, 6.0])


def test_cold_calls_refuse_an_answer_other_than_the_expected(fake_clock, monkeypatch):
    from mce_kit import prepared

    monkeypatch.setattr(prepared, "release", lambda G=None: None)
    answers = iter([7, 7, 8])
    assert measure.cold_calls(lambda G: 7, lambda: 0, 3, expect=7)[0] == [7, 7, 7]
    with pytest.raises(measure.WrongAnswer, match="expected 7"):
        measure.cold_calls(lambda G: next(answers), lambda: 0, 3, expect=7)
