"""The small private readers behind the loaders: ARFF, delimited tables, PPGN text, SMART."""

import numpy as np
import pytest

from kernelkit.datasets._text import float_table, int_tokens
from kernelkit.datasets.classic3 import _parse_smart
from kernelkit.datasets.exp import _parse_maron
from kernelkit.datasets.uci import read_numeric_arff

ARFF = """% a comment
@RELATION toy

@attribute a numeric
@attribute 'b c' REAL
@attribute y integer
@data
1, 2.5, 3
4, -5e-1, 6
"""


def test_arff():
    names, table = read_numeric_arff(ARFF, "toy.arff")
    assert names == ["a", "b c", "y"]
    np.testing.assert_array_equal(table, [[1, 2.5, 3], [4, -0.5, 6]])


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (ARFF.replace("REAL", "{x,y}"), r"toy\.arff, line 5: only numeric"),
        (ARFF.replace("4, -5e-1, 6", "4, ?, 6"), r"toy\.arff, line 9: '\?' is not a number"),
        (ARFF.replace("4, -5e-1, 6", "4, 6"), r"toy\.arff, line 9: expected 3 values"),
        (ARFF.split("@data")[0], "no @data"),
        (ARFF.replace("@data\n", ""), "line 7: unexpected header"),
        (ARFF.replace("@RELATION toy", "junk"), "line 2: unexpected header"),
    ],
)
def test_arff_errors(text, match):
    with pytest.raises(ValueError, match=match):
        read_numeric_arff(text, "toy.arff")


def test_float_table_line_numbers():
    table = float_table(
        "h1;h2\n1;2\n3;4\n".split("\n", 1)[1], "t.csv", 2, delimiter=";", first_line=2
    )
    np.testing.assert_array_equal(table, [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match=r"t\.csv, line 3: 'x' is not a number"):
        float_table("1;2\nx;4\n", "t.csv", 2, delimiter=";", first_line=2)
    with pytest.raises(ValueError, match="has no data rows"):
        float_table("\n\n", "t.csv", 2)


def test_int_tokens_counts_per_line():
    tok = int_tokens(b"3\r\n1 2 -3\r\n\r\n", "f")
    assert tok.values.tolist() == [3, 1, 2, -3]
    assert tok.counts.tolist() == [1, 3] and tok.starts.tolist() == [0, 1]


def test_maron_format():
    text = b"2\n2 1\n0 1 1\n1 1 0\n3 0\n1 2 1 2\n0 1 0\n0 1 0\n"
    graphs, y = _parse_maron(text, "toy.txt", "T")
    assert y.tolist() == [1, 0]
    assert [sorted(g.edges) for g in graphs] == [[(0, 1)], [(0, 1), (0, 2)]]
    assert [dict(g.nodes(data="label")) for g in graphs] == [{0: 0, 1: 1}, {0: 1, 1: 0, 2: 0}]
    assert graphs[1].graph["name"] == "T_2"


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (b"2\n2 1\n0 1 1\n1 1 0\n", "line 5"),  # second graph missing
        (b"1\n2 1\n0 1 5\n1 1 0\n", r"line 3: neighbour index out of range"),
        (b"1\n2 1\n0 2 1\n1 1 0\n", r"line 3: malformed"),
        (b"1\n1 1\n0 0\n0 0\n", "line 4"),  # extra node line
    ],
)
def test_maron_format_errors(text, match):
    with pytest.raises(ValueError, match=match):
        _parse_maron(text, "toy.txt", "T")


def test_smart_format():
    text = ".I 1\n.T\nA title\n.A\nsomeone\n.W\n  body line   \nmore\n.I 2\n.T \n.W\n"
    assert _parse_smart(text, "x") == [(1, "A title\nbody line\nmore"), (2, "")]
    with pytest.raises(ValueError, match="before the first"):
        _parse_smart("junk\n" + text, "x")
