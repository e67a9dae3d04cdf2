"""The hierarchies of test/release/pushdown_random.py: tree hierarchies (loaded
from CSV, whose labels the index paths may map to leaf sets) and the computed
interval, prefix and date hierarchies (which they may not)."""
import datetime

WORDS = ["apple", "Apple", "APPLE", "apricot", "banana", "Banana", "berry", "cherry", "chérie", "Cherry", "date",
         "delta", "eagle", "Éclair", "zebra", "Zulu", "b", "aa", "a b", "o'neil"]
DATES = [(datetime.date(2020, 1, 1) + datetime.timedelta(days=i)).isoformat() for i in range(366)]


def _num_csv():
    lines = []
    for v in range(0, 101):
        lines.append(f"{v};{v // 10 * 10}-{v // 10 * 10 + 9};{'low' if v < 50 else 'high'};*")
    return "\n".join(lines)


def _word_csv():
    lines = []
    for w in WORDS:
        first = w[0].lower()
        lines.append(f"{w};first:{first};vowel:{'yes' if first in 'aeiouéè' else 'no'};*")
    return "\n".join(lines)


def _date_csv():
    return "\n".join(f"{d};m{d[:7]};q{d[:4]}-{(int(d[5:7]) - 1) // 3 + 1};*" for d in DATES)


NUM_LABELS = sorted({l.split(";")[1] for l in _num_csv().split("\n")}) + ["low", "high"]
WORD_LABELS = sorted({l.split(";")[i] for l in _word_csv().split("\n") for i in (1, 2)})
DATE_LABELS = sorted({l.split(";")[i] for l in _date_csv().split("\n") for i in (1, 2)})

HIERARCHY_SQL = f"""
SELECT privrisk.load_hierarchy('rs_num', $csv${_num_csv()}$csv$);
SELECT privrisk.load_hierarchy('rs_word', $csv${_word_csv()}$csv$);
SELECT privrisk.load_hierarchy('rs_date_tree', $csv${_date_csv()}$csv$);
SELECT privrisk.interval_hierarchy('rs_num_iv', -100, 200, ARRAY[10, 50]);
SELECT privrisk.interval_hierarchy('rs_id', 0, 10000, ARRAY[10, 100]);
SELECT privrisk.prefix_hierarchy('rs_word_prefix', 8);
SELECT privrisk.date_hierarchy('rs_date');
CREATE COLLATION rs_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
"""
