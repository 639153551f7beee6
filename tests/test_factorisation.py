"""BERT's independence assumption made concrete: "New York is a city" with New and
York to predict."""

import pytest
import torch

from lamalib.analysis.factorisation import (mlm_log_probs, order_predicting_last,
                                            permutation_log_probs)
from lamalib.models.bert_pretraining import BertPretraining
from lamalib.models.mlm import MaskedLM
from lamalib.models.permutation_lm import PermutationLM
from lamalib.nn.transformer.visibility import visibility

pytestmark = pytest.mark.usefixtures("one_thread")

SIZES = dict(d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=16, dropout=0.0)
MASK = 2
NEW, YORK, IS, A, CITY, LOS = 5, 6, 7, 8, 9, 10
SENTENCE = [NEW, YORK, IS, A, CITY]


def test_york_sees_new_in_the_permutation_lm_and_not_in_mlm():
    order = order_predicting_last(5, [0, 1])
    assert order.tolist() == [2, 3, 4, 0, 1]
    v = visibility(5, order=order, masked=[0, 1])
    assert v["permutation_context"][1].tolist() == [True, False, True, True, True]
    assert v["permutation_context"][0].tolist() == [False, False, True, True, True]
    assert v["mlm_context"][1].tolist() == [False, False, True, True, True]
    assert v["mlm_context"][0].tolist() == v["mlm_context"][1].tolist()


def test_log_probs_follow_the_two_factorisations():
    torch.manual_seed(0)
    plm = PermutationLM(12, **SIZES)
    mlm = MaskedLM(12, **SIZES)
    other = [LOS, YORK, IS, A, CITY]  # another first word
    p = permutation_log_probs(plm, SENTENCE, [0, 1])
    p_other = permutation_log_probs(plm, other, [0, 1])
    assert p.shape == (2,) and (p < 0).all()
    # log p(York | New, ...) moves with the first word; log p(x_1 | ...) is scored
    # for the token there, so only the York term is comparable: it differs.
    assert abs(float(p[1] - p_other[1])) > 1e-5
    # And New's term never sees York: changing York leaves it.
    q = permutation_log_probs(plm, [NEW, LOS, IS, A, CITY], [0, 1])
    assert abs(float(q[0] - p[0])) < 1e-6
    # MLM: New is masked, so York's term cannot depend on it.
    m = mlm_log_probs(mlm, SENTENCE, [0, 1], MASK)
    m_other = mlm_log_probs(mlm, other, [0, 1], MASK)
    assert abs(float(m[1] - m_other[1])) < 1e-6
    # The BERT pretraining model's MLM head works the same way.
    bert = BertPretraining(12, **SIZES)
    b = mlm_log_probs(bert, SENTENCE, [0, 1], MASK)
    assert abs(float(b[1] - mlm_log_probs(bert, other, [0, 1], MASK)[1])) < 1e-6
    assert plm.training  # the helpers leave the mode as they found it
