"""How the clean workers get into a multi-task run (fedlib.experiments.clean_entry): hand-computed
runs, and simulated ones whose auctions are Algorithm 1's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fedlib.experiments.clean_entry import (
    ENTRY_COLUMNS,
    clean_entries,
    clean_entry,
    entry_table,
)
from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult
from fedlib.mechanism import select

#: One clean worker (index 0), two noisy ones (1 and 2).
CONFIG = MultiTaskConfig(groups=((1.0, 1), (0.1, 2)), n_tasks=3, eval_from=1, budget=5.0)
BIDS = [4.0, 1.0, 1.2]


def _run(records, config=CONFIG):
    return MultiTaskResult(config, tuple(records), 0.0)


def test_a_clean_worker_gets_in_once_the_noisy_winners_fall():
    """By hand. Task 0, all at Re^0 = 0.5: densities 8, 2, 2.4; Algorithm 1 takes worker 1
    (2 <= 5 / 0.5) and worker 2 (2.4 <= 5 / 1.0), not worker 0 (8 > 5 / 1.5). Their Re falls
    to 0.05 and 0.1; task 1 (same bids): densities 8, 20, 12, worker 0 first (8 <= 5 / 0.5),
    then worker 2 (12 > 5 / 0.6): worker 0 alone. With workers 1 and 2 back at 0.5, task 1 is
    task 0 again: no clean winner."""
    assert select(BIDS, [0.5] * 3, 5.0).winners.tolist() == [1, 2]
    assert select(BIDS, [0.5, 0.05, 0.1], 5.0).winners.tolist() == [0]
    records = [{"task": 0, "bids": BIDS, "winners": [1, 2], "Re": [0.5, 0.05, 0.1]},
               {"task": 1, "bids": BIDS, "winners": [0], "Re": [0.6, 0.05, 0.1]},
               {"task": 2, "bids": BIDS, "winners": [0], "Re": [0.7, 0.05, 0.1]}]
    entry = clean_entry(_run(records))
    assert (entry.seed, entry.budget) == (0, 5.0)
    assert (entry.first_hires, entry.entry_task, entry.entered_later) == (False, 1, True)
    assert entry.at_initial is True and entry.fallen == (1, 2) and entry.fallen_won is False
    assert entry.replayed is True and entry.restored_hires is False
    assert entry.share == 1.0 and entry.ever_fell is True


def test_a_first_auction_that_hires_a_clean_worker():
    """B = 20: every worker fits (8 <= 20 / 1.5), so the first task hires worker 0."""
    config = MultiTaskConfig(groups=((1.0, 1), (0.1, 2)), n_tasks=2, eval_from=1, budget=20.0)
    records = [{"task": 0, "bids": BIDS, "winners": [1, 2, 0], "Re": [0.6, 0.5, 0.5]},
               {"task": 1, "bids": BIDS, "winners": [1, 2, 0], "Re": [0.7, 0.5, 0.5]}]
    entry = clean_entry(_run(records, config))
    assert (entry.first_hires, entry.entry_task, entry.entered_later) == (True, 0, False)
    assert entry.at_initial is True and entry.fallen == () and not entry.fallen_won
    assert entry.replayed is True and entry.restored_hires is True
    assert entry.share == pytest.approx(1 / 3) and entry.ever_fell is False


def test_a_run_whose_clean_workers_never_win():
    """The noisy winners rate each other well: nobody falls, nobody clean ever wins."""
    records = [{"task": t, "bids": BIDS, "winners": [1, 2], "Re": [0.5, 0.6, 0.6]}
               for t in range(3)]
    entry = clean_entry(_run(records))
    assert entry.entry_task is None and not entry.first_hires and not entry.entered_later
    assert entry.at_initial is None and entry.restored_hires is None and entry.fallen == ()
    assert entry.share == 0.0 and entry.ever_fell is False
    assert clean_entries([_run(records)] * 2) == [entry, entry]


def test_records_that_the_auction_does_not_give_are_not_replayed():
    """Task 1 records worker 0 and worker 2 as winners, which Algorithm 1 does not choose from
    those reputations: the replay says so and no counterfactual is drawn."""
    records = [{"task": 0, "bids": BIDS, "winners": [1, 2], "Re": [0.5, 0.05, 0.1]},
               {"task": 1, "bids": BIDS, "winners": [0, 2], "Re": [0.6, 0.05, 0.1]}]
    entry = clean_entry(_run(records))
    assert entry.replayed is False and entry.restored_hires is None
    assert entry.fallen_won is True  # worker 2, below Re^0, is recorded as a winner


def test_the_group_is_chosen_by_data_accuracy():
    records = [{"task": 0, "bids": BIDS, "winners": [1, 2], "Re": [0.5, 0.05, 0.1]},
               {"task": 1, "bids": BIDS, "winners": [0], "Re": [0.6, 0.05, 0.1]}]
    noisy = clean_entry(_run(records), dacc=0.1)
    assert noisy.first_hires and noisy.entry_task == 0 and noisy.share == 0.0


def test_what_cannot_be_read_is_refused():
    with pytest.raises(ValueError, match="no tasks"):
        clean_entry(_run([]))
    records = [{"task": 0, "bids": BIDS, "winners": [1, 2], "Re": [0.5, 0.05, 0.1]}]
    with pytest.raises(ValueError, match="data accuracy 0.7"):
        clean_entry(_run(records), dacc=0.7)
    vanilla = MultiTaskConfig(groups=((1.0, 1), (0.1, 2)), n_tasks=1, eval_from=0,
                              budget=5.0, mechanism="vanilla")
    with pytest.raises(ValueError, match="at random"):
        clean_entry(_run(records, vanilla))


def test_the_table_of_entries():
    """Tasks from 1; a dash where a column does not apply."""
    late = clean_entry(_run(
        [{"task": 0, "bids": BIDS, "winners": [1, 2], "Re": [0.5, 0.05, 0.1]},
         {"task": 1, "bids": BIDS, "winners": [0], "Re": [0.6, 0.05, 0.1]}]))
    never = clean_entry(_run([{"task": t, "bids": BIDS, "winners": [1, 2],
                               "Re": [0.5, 0.6, 0.6]} for t in range(3)]))
    first = clean_entry(_run(
        [{"task": 0, "bids": BIDS, "winners": [1, 2, 0], "Re": [0.6, 0.5, 0.5]}],
        MultiTaskConfig(groups=((1.0, 1), (0.1, 2)), n_tasks=1, eval_from=0, budget=20.0)))
    table = entry_table({"late": late, "never": never, "first": first}, title="t")
    assert table.columns == ENTRY_COLUMNS and table.title == "t"
    assert table.rows == (("late", "5", False, 2, 2, False, False, "1.000"),
                          ("never", "5", False, "-", "-", "-", "-", "0.000"),
                          ("first", "20", True, 1, 0, "-", "-", "0.333"))


@st.composite
def simulated_runs(draw):
    """A run of ours' selection (Algorithm 1) over a few tasks: bids drawn per task, winners'
    Re moved to arbitrary values, losers keeping theirs, as the multi-task experiment does."""
    n_clean, n_noisy = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    n_tasks = draw(st.integers(1, 6))
    budget = draw(st.floats(2.0, 40.0))
    config = MultiTaskConfig(groups=((1.0, n_clean), (0.1, n_noisy)), n_tasks=n_tasks,
                             eval_from=0, budget=budget)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    daccs = config.daccs
    Re = np.full(daccs.size, config.initial_reputation)
    records = []
    for t in range(n_tasks):
        bids = 10 / 3 * daccs + 2 / 3 + 2 * rng.random(daccs.size)
        winners = select(bids, Re, budget).winners.tolist()
        Re = Re.copy()
        Re[winners] = rng.choice([0.0, 0.05, 0.3, 0.7, 0.9], size=len(winners))
        records.append({"task": t, "bids": bids.tolist(), "winners": winners,
                        "Re": Re.tolist()})
    return _run(records, config)


@settings(max_examples=200, deadline=None)
@given(simulated_runs())
def test_properties_of_simulated_runs(run):
    entry = clean_entry(run)
    clean = run.config.daccs == 1.0
    Re0 = run.config.initial_reputation
    won_clean = [bool(clean[r["winners"]].any()) for r in run.records]
    assert entry.first_hires == won_clean[0]
    assert entry.entry_task == (won_clean.index(True) if any(won_clean) else None)
    assert entry.replayed  # the records are Algorithm 1's
    if entry.entry_task is None:
        assert entry.at_initial is None and entry.restored_hires is None
        assert entry.fallen == () and (entry.share == 0.0 or np.isnan(entry.share))
        return
    # a clean worker that never won kept Re^0
    assert entry.at_initial is True
    # only earlier winners can have fallen below Re^0
    earlier = {i for r in run.records[:entry.entry_task] for i in r["winners"]}
    assert set(entry.fallen) <= earlier
    assert all(Re0 > run.records[entry.entry_task - 1]["Re"][i] for i in entry.fallen)
    if not entry.fallen:  # nothing to put back: the replay is the auction itself
        assert entry.restored_hires is True
    if entry.entry_task == 0:
        assert entry.first_hires and entry.fallen == () and not entry.entered_later
