"""Where the paper is silent, ambiguous or wrong, and what fedlib does there.

Every place where implementing the paper needed a decision is one :class:`Reading`, in the
paper's order: what the paper says (with its section, equation or algorithm line), the reading
fedlib implements by default, the alternative, the fedlib parameter that selects it ("fixed"
when the alternative is not implemented, with the function that holds the decision) and the
chapter that shows or measures the difference. The reproducibility chapter renders
:data:`READINGS` as a table; docstrings that depend on a reading point here. For every reading,
``tests/paper/test_readings.py`` runs the code it names on a case computed by hand and checks
that it does what the default column says.

Equation numbers count the paper's displayed equations in order (see :mod:`fedlib.paper`).
"""

from __future__ import annotations

from dataclasses import dataclass

#: The paper's numbered sections, as its LaTeX source numbers them; the readings and the
#: chapters cite these numbers ("Section 4.2", "Sec. 6").
PAPER_SECTIONS: dict[str, str] = {
    "1": "Introduction", "2": "Related Work", "3": "System Model and Problem Definition",
    "3.1": "System Model", "3.2": "Problem Definition", "4": "Mechanism Design",
    "4.1": "Contribution Measurement", "4.2": "Reputation Modeling",
    "4.3": "Workers Selection and Payment", "5": "Theoretical Analysis", "6": "Experiment",
    "7": "Conclusion",
}


@dataclass(frozen=True)
class Reading:
    """A place where the paper is silent or ambiguous, and what fedlib does.

    Attributes
    ----------
    topic, paper, default, alternative, parameter, chapter : str
        What is open, what the paper says, fedlib's default reading, the alternative, the
        fedlib parameter that selects it, and the chapter that measures the difference.
    """

    topic: str
    paper: str
    default: str
    alternative: str
    parameter: str
    chapter: str


#: Every reading fedlib implements, in the paper's order.
READINGS: tuple[Reading, ...] = (
    Reading("Zero probabilities in Eq. (2)", "Section 4.1 weighs samples by -ln P_ij, infinite "
            "when a model gives the true label probability 0",
            "P_ij clipped to [1e-12, 1] before the logarithm",
            "no floor (one zero probability takes all the weight)",
            "fixed: fedlib.mechanism.contribution.P_FLOOR", "02_contribution"),
    Reading("Worker set U of Eqs. (2)-(3)", "Section 4.1: 'the worker set U', per global round",
            "the workers that submitted a model in the round (also for the max-normalisation)",
            "every worker of the task", "fixed: fedlib.mechanism.round_contributions",
            "02_contribution"),
    Reading("Rounds T of the contribution mean", "Section 4.1: contrib_i = sum over T of "
            "contrib_i^t / |T|, T 'all global rounds that worker i participated in'; not said "
            "whether a round in which i failed the quality check counts",
            "every round in which i submitted a model, passed or failed (a winner submits in "
            "every round, so |T| is the task's rounds)",
            "only the rounds i passed (drops a failing worker's poor rounds and raises its "
            "contribution)",
            "fixed: fedlib.fl.task.finish_task (fedlib.mechanism.task_contributions mask "
            "selects the rounds)", "02_contribution"),
    Reading("Equal-weighted benchmark", "Section 6 (Figures 2-3) compares ours with an "
            "'equal-weighted' benchmark",
            "mean true-class probability with equal sample weights",
            "local model accuracy (plotted as its own curve)",
            "fedlib.mechanism.contributions(weighted=False)", "02_contribution"),
    Reading("Label noise of data accuracy", "Section 6: 'by modifying the label to another'",
            "exactly round((1 - dacc) n) labels, each set to one of the other nine classes",
            "each label changed independently with probability 1 - dacc",
            "fixed: fedlib.fl.workers.flip_labels", "02_contribution"),
    Reading("Case 2 split (Figure 3)", "Section 6: worker 0 'has data of all labels and the "
            "others lack data of a certain label'",
            "worker k (1..9) lacks label k; 1000 disjoint samples each, drawn uniformly from "
            "the samples of the other nine labels; every label clean",
            "other missing labels or label proportions (e.g. a random missing label per worker)",
            "fixed: fedlib.fl.workers.case2_workers", "02_contribution"),
    Reading("Losses l and l_-i of the quality check", "Section 4.2: the loss of 'the global "
            "model' with and without worker i; the aggregation is not said",
            "plain average of the submitted local models, with and without worker i",
            "the omega-weighted model (circular: omega needs the check)",
            "fixed: fedlib.fl.task.run_task", "03_reputation"),
    Reading("One submitted model", "Section 4.2 compares l with l_-i, the loss without "
            "worker i; with one submitted model that aggregate does not exist",
            "a single model passes (its delta_l is recorded as 0): it is aggregated and its "
            "round counts as a pass", "it fails (the global model never moves and the "
            "worker's trust collapses)",
            "fixed: fedlib.mechanism.leave_one_out_pass (fedlib.fl.task.score_round)",
            "03_reputation"),
    Reading("Nobody passes the quality check", "Section 4.2: 'only the passed local model can "
            "participate in the model aggregation'; silent when none passes",
            "keep the previous global model", "aggregate every submitted model",
            "fixed: fedlib.fl.task.run_task", "03_reputation"),
    Reading("Pass and fail counts of Eq. (4)", "Section 4.2: n_pass and n_fail are 'the "
            "number of times that the worker i passed and failed the detection'; over which "
            "rounds is not said", "the rounds of the current task (trust is part of the "
            "task's internal reputation re_i^tau)", "the worker's whole history of tasks "
            "(trust would then recover slowly after a bad task, and carry over to new ones)",
            "fixed: fedlib.fl.task.finish_task", "03_reputation"),
    Reading("Eq. (4) without any check", "0 / 0 for a worker with no pass and no failure",
            "x = 0 (trust exp(-1))", "no trust without evidence (x = -1)",
            "fixed: fedlib.mechanism.trust_input", "03_reputation"),
    Reading("Eq. (9)", "ends with Re^tau", "Re^(tau-1) (the previous reputation)",
            "as printed (circular)", "fixed: fedlib.mechanism.update_reputation (Eq9Check "
            "with_previous | as_printed evaluate both, the printed one with Re_i^tau)",
            "03_reputation"),
    Reading("Counters in Eq. (12)", "Eqs. (7)-(8) and (12) do not say whether alpha uses "
            "n+ and n- before or after this task",
            "update n+ and n- first, then alpha and Eq. (13); losers keep Re and counters",
            "alpha from the counters before the task",
            "fixed: fedlib.mechanism.update_reputation", "03_reputation"),
    Reading("Workers of the quality score", "Section 4.2: s_i = (dl_i - min_j dl_j) / "
            "sum_k (dl_k - min_j dl_j), quality_score_i = (s_0 + s_i) / sum_k (s_0 + s_k), "
            "'s_0 is a constant, usually s_0 = 1'; the workers j and k run over are not named",
            "the workers that passed the check (only they are aggregated); s_0 = 1",
            "every submitted model: a failing model's low dl then sets the minimum and shifts "
            "every passing s_i",
            "TaskOptions.s0 (fedlib.mechanism.quality_scores s0); the set fixed: "
            "fedlib.mechanism.detection_scores", "03_reputation"),
    Reading("Zero denominator of s_i", "Section 4.2: s_i is 0 / 0 when every passing dl is "
            "equal (always so with one passing worker)", "s_i = 0 for every worker",
            "any common value c, e.g. 1/m for m passing workers: changes nothing, since "
            "quality_score_i = (s_0 + c) / (m (s_0 + c)) = 1/m for every c",
            "fixed: fedlib.mechanism.detection_scores", "03_reputation"),
    Reading("Aggregation weight omega", "Section 4.2: denominator printed with "
            "quality_score_i",
            "quality_score_j: omega proportional to contribution x quality",
            "as printed (the quality score cancels)",
            "TaskOptions.denominator = 'corrected' | 'printed' "
            "(fedlib.mechanism.aggregation_weights denominator)", "03_reputation"),
    Reading("Ties and Re = 0 in Algorithm 1", "line 1 sorts by b/Re; ties and Re_i = 0 are "
            "not treated", "ties by worker index; Re_i = 0 has density +inf and never wins",
            "random tie-break", "fixed: fedlib.mechanism.select", "04_auction"),
    Reading("rho* when every worker wins", "Eq. (14) uses b_(k+1)/Re_(k+1), undefined when "
            "k = |U|", "b_(k+1)/Re_(k+1) = +inf, so rho* = B / sum of Re over S",
            "the last winner's density (pays less)", "fixed: fedlib.mechanism.select",
            "04_auction"),
    Reading("rho* when nobody wins", "Eq. (14): B / sum of Re over S is B / 0 when S is "
            "empty", "that term read as +inf, so rho* = b_1/Re_1 (the first density in the "
            "order)", "rho* = B / 0 = +inf, or undefined: changes nothing, since with S empty "
            "no p_up and no payment is computed from rho* (every payment is 0)",
            "fixed: fedlib.mechanism.select", "04_auction"),
    Reading("Re in p_up at payment time", "Eq. (15): p_up = Re_i rho*, computed before the "
            "task (Algorithm 1 lines 9-10); p_i = min(p_up, p'_i) after it, when Eq. (13) "
            "has already moved Re_i", "the pre-task Re^(tau-1) the auction ran on: p_up is "
            "fixed at selection (Auction.upper)", "p_up recomputed with the updated Re^tau "
            "(breaks Theorem 2: the sum of Re^tau rho* can exceed B)",
            "fixed: fedlib.mechanism.select, fedlib.mechanism.ex_post_payments",
            "04_auction"),
    Reading("Denominator of p'_i", "Algorithm 1: sum of re over S; proof of Theorem 1: sum "
            "of Re", "sum of re over S", "sum of Re over S",
            "ex_post_payments(temp_denominator='re' | 'Re'); OurMechanism.temp_denominator",
            "05_proofs"),
    Reading("Metric of Figures 4-5", "'ex-post utility of unit payments'",
            "sum of re over winners / sum of payments", "per unit of budget",
            "auction_sweeps per = 'payment' | 'budget' (SweepConfig, budget_sweep, "
            "worker_sweep; drawn by plot_sweep, sweep_figure, labelled by viz.mechanisms.READINGS)",
            "06_mechanisms"),
    Reading("Budgets of Figure 4", "Section 6: the figure's budget axis is not printed "
            "(Figure 5 uses B = 125)", "B = 25, 50, ..., 250 at n = 100", "any budgets",
            "SweepConfig.xs (fedlib.paper.settings.PAPER_BUDGETS)", "06_mechanisms"),
    Reading("Numbers of workers of Figure 5", "Section 6: Figure 5 varies the number of "
            "workers at B = 125; the axis is not printed", "n = 20, 40, ..., 200 at B = 125 "
            "(Figure 4's n = 100 in the middle)", "any numbers of workers",
            "SweepConfig.xs (fedlib.paper.settings.PAPER_WORKERS; worker_sweep "
            "n_workers_list)", "06_mechanisms"),
    Reading("RRAFL", "Section 6 names RRAFL as the first benchmark and never defines it",
            "Algorithm 1's selection (ascending b/Re, proportional-share stop) paid "
            "p_up = rho* Re_i ex ante, whatever the worker then does",
            "another reputation-based reverse auction, e.g. with its own selection rule",
            "fixed: fedlib.mechanism.RRAFL", "06_mechanisms"),
    Reading("Proportional Share", "Section 6: 'the Proportional Share mechanism' (Singer); "
            "the value of a worker is not said",
            "Singer's rule with unit values (Re ignored): ascending bids while b_i <= B / i, "
            "paid rho* ex ante", "reputations as values (then it is RRAFL)",
            "fixed: fedlib.mechanism.ProportionalShare", "06_mechanisms"),
    Reading("Greedy benchmarks 'until the budget is exhausted'", "Section 6: Vanilla FL, Bid "
            "Greedy and Reputation Greedy select 'until the budget is exhausted / runs out'; "
            "payment not said", "stop at the first bid that no longer fits; pay each winner "
            "its bid; ties by worker index",
            "skip a bid that does not fit and go on with the next ones",
            "fixed: fedlib.mechanism.VanillaFL, BidGreedy, ReputationGreedy", "06_mechanisms"),
    Reading("Approximate Optimal", "full information, maximise utility",
            "ratio greedy re / c, better of it and the best single worker",
            "exact 0/1 knapsack", "ApproximateOptimal.exact (MECHANISMS['approx_optimal'] | "
            "'approx_optimal_exact')",
            "06_mechanisms"),
    Reading("Values of Approximate Optimal", "Section 6: it has 'full knowledge about all "
            "workers' information'", "the realised re (Figures 4-5): the sweeps hand "
            "ApproximateOptimal re in place of Re",
            "the accumulated Re (known before the task; what the multi-task runs hand it)",
            "auction_sweeps optimal_values = 're' | 'Re' (SweepConfig, budget_sweep, "
            "worker_sweep)", "06_mechanisms"),
    Reading("Initial reputation Re^0", "not given", "0.5 for every worker", "any value "
            "(chapter 13 runs 0.25 and 0.75)",
            "MultiTaskConfig.initial_reputation (ReputationLedger initial_reputation, "
            "reputation_path initial; fedlib.mechanism.reputation.INITIAL_REPUTATION; "
            "sensitivity INITIAL_REPUTATION_VALUES)", "13_sensitivity"),
    Reading("Budget of Tables 1-3", "not given", "B = 60 per task", "any budget",
            "MultiTaskConfig.budget (multitask DEFAULT_BUDGET; reproduce tables --budget)",
            "07_federated"),
    Reading("Bids in Tables 1-3", "drawn from a range; not said whether per task",
            "redrawn before every task", "one draw for the whole run",
            "MultiTaskConfig.redraw_bids", "07_federated"),
    Reading("Model across tasks", "not said", "a fresh model for every task",
            "the previous task's global model carried over",
            "MultiTaskConfig.fresh_model (reproduce tables --carry-model; multitask "
            "CARRIED_MECHANISMS)", "07_federated"),
    Reading("Optimizer of local training", "Section 6: '1 epoch with a learning rate of 0.05 "
            "and a batch size of 128'; no optimizer named",
            "plain SGD (no momentum, no weight decay)", "SGD with momentum, e.g. 0.9",
            "TaskOptions.momentum (BatchedEngine.train_local momentum; coldstart "
            "COLD_START_VALUES)", "14_cold_start"),
    Reading("Publisher's validation and test sets", "Section 3.1: the publisher's 'data "
            "serves as the test set and validation set'; Section 6: both of size 5000, drawn "
            "from where not said", "the two disjoint halves of a random permutation of the "
            "10000-image test split (no worker holds any of them)",
            "the validation set held out from the training split, the test split for testing "
            "only", "fixed: fedlib.fl.workers.publisher_sets (sizes MultiTaskConfig.n_val, "
            "n_test)", "07_federated"),
    Reading("Workers' samples in Tables 1-3", "Section 6: each worker's 1000 samples are "
            "'randomly sampled from the corresponding dataset'; not said whether workers "
            "share samples, nor whether the mechanisms of Tables 2-3 meet the same workers",
            "pairwise disjoint samples of the training split; one pool per seed (samples, "
            "flipped labels, validation and test sets) for every mechanism of Tables 1-3",
            "independent draws per worker (samples may repeat across workers), or a new "
            "pool per mechanism (the comparison then mixes in the draw)",
            "fixed: fedlib.fl.workers.iid_workers, fedlib.experiments.multitask.worker_pool",
            "07_federated"),
    Reading("Tasks and payments of Tables 1-3", "Section 6: 'using the last 45 tasks to "
            "evaluate the mechanism', but Table 1 is 'in 50 tasks'; Table 1's 'Payment' not "
            "defined", "Table 1 over all 50 tasks, as its caption says, Tables 2-3 over the "
            "last 45; payment = mean over the (worker, task) pairs the group won",
            "Table 1 over the last 45 too (then ours, hiring only clean workers there as "
            "Table 2 says, leaves the noisy groups no contribution or payment, against Table "
            "1's numbers); payment averaged over all tasks (0 when losing)",
            "MultiTaskConfig.eval_from; fedlib.experiments.table_summaries.table1 all_tasks, "
            "'payment_per_task'", "07_federated"),
    Reading("Table 1's 'Reputation'", "Table 1 gives one 'Reputation' per data accuracy, "
            "not said whether internal or accumulated, nor when",
            "the group's mean accumulated Re after the last task (one of the two premises, "
            "with bids redrawn every task, of the argument that Tables 1 and 2 cannot both "
            "hold)",
            "Re averaged over the tasks, or the internal re of the tasks won",
            "fedlib.experiments.table_summaries.table1 'reputation' | 'mean_reputation'",
            "07_federated"),
    Reading("Table 2's share", "Table 2: 'proportion of workers with a data accuracy of "
            "1.0 among the selected workers' in the last 45 tasks; pooled or per task not said",
            "pooled: the share over all (worker, task) selections of the evaluated tasks",
            "the mean of the tasks' shares; the two agree when every task hires the same "
            "number of workers",
            "fixed: fedlib.experiments.table_summaries.table2", "07_federated"),
    Reading("Table 3's loss", "Table 3: 'average loss of global models'; which model and "
            "which data not said", "the test-set cross-entropy of each evaluated task's final "
            "global model (after its last round), averaged over the tasks with winners",
            "every round's global model (table_summaries.round_curves), or the validation set",
            "fixed: fedlib.experiments.table_summaries.table3 (task_losses; "
            "fedlib.fl.records.RoundRecord test_loss)", "07_federated"),
    Reading("Input normalisation and models", "Section 6: 'a fully connected model' "
            "(MNIST) and 'the LeNet model'; sizes and pixel scaling not given",
            "784-200-200-10 ReLU MLP; LeNet-5 (two conv/max-pool stages, 400-120-84-10); "
            "pixels scaled to [0, 1], then MNIST's mean and std for both datasets",
            "other layer sizes; per-dataset statistics",
            "fixed: fedlib.fl.models.PIXEL_MEAN, PIXEL_STD (fedlib.fl.models.MLP, LeNet5)",
            "07_federated"),
    Reading("Trials per point (Figures 4-5), seeds (Figures 2-3)", "not given",
            "1000 worker pools per point; 20 seeds", "any",
            "SweepConfig.trials (fedlib.experiments.auction_sweeps.DEFAULT_TRIALS); "
            "ContributionConfig.seeds (fedlib.experiments.contribution.ContributionConfig); "
            "chapter parameters",
            "06_mechanisms"),
)
