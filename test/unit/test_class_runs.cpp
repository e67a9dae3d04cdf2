// Runs of classes (src/core/classes/class_runs.cpp): the second phase of a
// parallel read. Parts of one release tallied apart and merged task by task give
// the one-pass classes bit for bit; damaged runs are refused.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "classes/class_aggregator.hpp"
#include "classes/class_runs.hpp"
#include "classes/contingency_table.hpp"
#include "common/byte_form.hpp"
#include "common/error.hpp"
#include "measures/measures.hpp"

using namespace privrisk;

namespace {

// A merged key as a part carries it (u32 length, then per column a u32 length,
// UINT32_MAX for ⊥, and the bytes): its values.
std::vector<std::optional<std::string>> read_key(ByteReader& r, int columns) {
    ByteReader key{r.bytes(r.get<uint32_t>()), "test"};
    std::vector<std::optional<std::string>> values;
    for (int i = 0; i < columns; ++i) {
        uint32_t length = key.get<uint32_t>();
        values.push_back(length == UINT32_MAX ? std::nullopt : std::optional<std::string>(std::string(key.bytes(length))));
    }
    EXPECT_TRUE(key.in.empty());
    return values;
}

}  // namespace

// A parallel read (src/pg/classes/parallel_classes.cpp): each part's classes in
// runs by task, task t's runs of every part merged into one table part, the
// parts put together. Tasks are disjoint (the classes add up to the one-pass
// count) and the measures are the one pass's, bit for bit.
TEST(ClassAggregator, RunsMergedAcrossPartsGiveTheOnePassClasses) {
    std::mt19937 rng(43);
    for (int round = 0; round < 40; ++round) {
        const int qis = 1 + rng() % 4, rows = 1 + rng() % 5000, parts = 1 + rng() % 4;
        const std::size_t tasks = std::vector<std::size_t>{1, 3, 32, 256}[rng() % 4];
        ClassAggregator one(std::pmr::new_delete_resource(), qis);
        std::vector<std::unique_ptr<ClassAggregator>> part;
        for (int p = 0; p < parts; ++p)
            part.push_back(std::make_unique<ClassAggregator>(std::pmr::new_delete_resource(), qis, 1 + rng() % 700));
        for (int r = 0; r < rows; ++r) {
            std::vector<std::string> key(qis);
            std::vector<Value> qi(qis);
            for (int i = 0; i < qis; ++i) {
                int v = rng() % 9;
                // Keys of several lengths; long ones in some rounds, so a run's records outgrow their first buffer.
                key[i] = std::string(round % 5 == 1 ? 300 + 37 * v : 1 + v % 3, char('a' + v));
                qi[i] = v == 8 ? Value() : Value(key[i]);
            }
            // Sensitive domains of 90, 64 and 65 values (ids past a 64-bit mask) and 7.
            int s = rng() % std::vector<int>{90, 64, 65, 7}[round % 4];
            std::string sv = "s" + std::to_string(s);
            Value sensitive = s == 6 ? Value() : Value(sv);
            one.add(qi.data(), sensitive);
            part[rng() % parts]->add(qi.data(), sensitive);
        }
        std::vector<std::string> sensitive;
        std::vector<std::vector<std::string>> run_bytes(tasks);
        for (auto& p : part) {
            for (std::size_t t = 0; t < tasks; ++t) run_bytes[t].push_back(p->serialize_run(t, tasks));
            sensitive.push_back(p->serialize_sensitive());
        }
        const RunValues merged = run_values(std::vector<std::string_view>(sensitive.begin(), sensitive.end()));
        std::vector<std::string> merged_parts;
        for (std::size_t t = 0; t < tasks; ++t)
            merged_parts.push_back(merge_class_runs(std::vector<std::string_view>(run_bytes[t].begin(), run_bytes[t].end()), merged));
        ContingencyTable got = ContingencyTable::from_canonical_parts(
            merged.values, std::vector<std::string_view>(merged_parts.begin(), merged_parts.end()));
        ContingencyTable want = one.finish();
        EXPECT_EQ(got.classes(), want.classes());
        EXPECT_EQ(got.rows(), want.rows());
        EXPECT_EQ(got.values(), want.values());
        EXPECT_EQ(got.base(), want.base());
        EXPECT_EQ(*a_know(got), *a_know(want));
        EXPECT_EQ(*information_gain(got), *information_gain(want));
        EXPECT_EQ(*l_entropy(got), *l_entropy(want));
        EXPECT_EQ(*t_equal(got), *t_equal(want));
        EXPECT_EQ(*k_anonymity(got), *k_anonymity(want));
        EXPECT_EQ(*l_recursive(got, 2.0), *l_recursive(want, 2.0));
        EXPECT_EQ(*records_at_risk(got, 0.2), *records_at_risk(want, 0.2));
        EXPECT_EQ(*a_acc(got), *a_acc(want));
        EXPECT_EQ(*delta_disclosure(got), *delta_disclosure(want));
        // Identical classes of a task are one entry with their multiplicity.
        std::size_t entries = 0;
        for (const auto& c : got.all()) {
            EXPECT_GE(c.multiplicity, 1);
            ++entries;
        }
        EXPECT_LE(entries, static_cast<std::size_t>(want.classes()));
        if (tasks == 1) {  // one part: no two entries of up to 16 rows alike
            std::set<std::vector<ContingencyTable::Pair>> shapes;
            std::size_t small = 0;
            for (const auto& c : got.all())
                if (c.size <= 16) {
                    shapes.emplace(got.counts(c).begin(), got.counts(c).end());
                    ++small;
                }
            EXPECT_EQ(shapes.size(), small);
        }
    }
}

// A run's keys when a value has no bytes: ⊥ (length UINT32_MAX) and '' (length 0)
// are different keys, in columns whose only non-⊥ value is '' (no text stored at
// all). Copying their no bytes was undefined behaviour (memcpy from a null
// pointer), which scripts/test --sanitize reported.
TEST(ClassAggregator, RunsKeepNullAndEmptyKeysApart) {
    ClassAggregator a(std::pmr::new_delete_resource(), 2);
    const std::string empty, sensitive = "s";
    using Key = std::vector<std::optional<std::string>>;
    const std::vector<std::pair<Key, int>> rows = {{{std::nullopt, empty}, 1}, {{empty, std::nullopt}, 2},
                                                   {{std::nullopt, std::nullopt}, 3}, {{empty, empty}, 4}};
    for (const auto& [key, times] : rows)
        for (int n = 0; n < times; ++n) {
            Value qi[2] = {key[0] ? Value(*key[0]) : Value(), key[1] ? Value(*key[1]) : Value()};
            a.add(qi, Value(sensitive));
        }
    const std::string run = a.serialize_run(0, 1);
    ByteReader r{run, "test"};
    ASSERT_EQ(r.get<uint64_t>(), 4u);
    std::map<Key, uint64_t> got;
    for (int c = 0; c < 4; ++c) {
        r.get<uint64_t>();  // the class's hash
        ByteReader at_key = r;
        EXPECT_EQ(at_key.get<uint32_t>(), 8u) << "two lengths, no bytes";
        Key key = read_key(r, 2);
        ByteReader cells{r.bytes(r.get<uint32_t>()), "test"};
        EXPECT_EQ(cells.varint(), 0u);  // the one sensitive value's id
        got[key] = cells.varint();
        EXPECT_TRUE(cells.in.empty());
    }
    EXPECT_TRUE(r.in.empty());
    std::map<Key, uint64_t> want;
    for (const auto& [key, times] : rows) want[key] = static_cast<uint64_t>(times);
    EXPECT_EQ(got, want);
}

// Distinct tuples with their counts from runs of several parts (the parallel
// read of a dictionary): each tuple once, in one task, counted as a std::map
// over the same rows counts it.
TEST(ClassRuns, TupleRunsGiveTheDistinctTuplesAndCounts) {
    std::mt19937 rng(53);
    for (int round = 0; round < 30; ++round) {
        const int qis = 1 + rng() % 3, rows = 1 + rng() % 3000, parts = 1 + rng() % 3;
        const std::size_t tasks = std::vector<std::size_t>{1, 5, 32}[rng() % 3];
        std::map<std::vector<std::optional<std::string>>, int64_t> want;
        std::vector<std::unique_ptr<ClassAggregator>> part;
        for (int p = 0; p < parts; ++p) part.push_back(std::make_unique<ClassAggregator>(std::pmr::new_delete_resource(), qis));
        for (int r = 0; r < rows; ++r) {
            std::vector<std::string> key(qis);
            std::vector<Value> qi(qis);
            std::vector<std::optional<std::string>> tuple(qis);
            for (int i = 0; i < qis; ++i) {
                int v = rng() % 7;
                key[i] = std::string(v, char('a' + v));  // "" is a value, not ⊥
                qi[i] = v == 6 ? Value() : Value(key[i]);
                tuple[i] = v == 6 ? std::nullopt : std::optional<std::string>(key[i]);
            }
            ++want[tuple];
            part[rng() % parts]->add(qi.data(), Value());
        }
        std::map<std::vector<std::optional<std::string>>, int64_t> got;
        for (std::size_t t = 0; t < tasks; ++t) {
            std::vector<std::string> runs;
            for (auto& p : part) runs.push_back(p->serialize_run(t, tasks));
            std::string merged = merge_tuple_runs(std::vector<std::string_view>(runs.begin(), runs.end()));
            ByteReader r{merged, "test"};
            for (uint64_t n = r.get<uint64_t>(); n > 0; --n) {
                std::vector<std::optional<std::string>> tuple = read_key(r, qis);
                EXPECT_EQ(got.count(tuple), 0u) << "a tuple in two tasks or twice in one";
                got[tuple] = r.get<int64_t>();
            }
            EXPECT_TRUE(r.in.empty());
        }
        EXPECT_EQ(got, want);
    }
}

// A damaged run is refused, never read past its end: truncated, trailing
// bytes, an unknown value id, a count of 0, classes out of order.
TEST(ClassRuns, RefusesDamagedRuns) {
    ClassAggregator a(std::pmr::new_delete_resource(), 1);
    std::string x = "x", y = "y";
    for (const std::string* v : {&x, &y, &x}) {
        Value key[1] = {Value(*v)};
        a.add(key, Value(x));
    }
    const std::string sensitive = a.serialize_sensitive(), run = a.serialize_run(0, 1);
    auto refused = [&](const std::string& s, const std::string& r) {
        try {
            merge_class_runs({r}, run_values({s}));
        } catch (const Error&) {
            return true;
        }
        return false;
    };
    EXPECT_FALSE(refused(sensitive, run));
    for (std::size_t n = 0; n < run.size(); ++n) EXPECT_TRUE(refused(sensitive, run.substr(0, n))) << n;
    for (std::size_t n = 0; n < sensitive.size(); ++n) EXPECT_TRUE(refused(sensitive.substr(0, n), run)) << n;
    EXPECT_TRUE(refused(sensitive, run + "z"));
    // One class's record: hash (8), key length (4), key (4 + 1), cells' length (4), one
    // cell (varint id and count: 1 + 1).
    const std::size_t record = 8 + 4 + 5 + 4 + 2;
    ASSERT_EQ(run.size(), 8 + 2 * record);
    std::string id = run;
    id[8 + record - 2] = 5;  // the first class's cell: value id 5 of 1
    EXPECT_TRUE(refused(sensitive, id));
    std::string zero = run;
    zero[8 + record - 1] = 0;  // its count: 0
    EXPECT_TRUE(refused(sensitive, zero));
    std::string empty = run.substr(0, 8 + record - 6) + std::string(4, '\0') + run.substr(8 + record);
    EXPECT_TRUE(refused(sensitive, empty));  // a class without cells
    std::string longer = run;
    longer[8 + record - 1] = char(0x81);  // a count that runs on into the next record
    EXPECT_TRUE(refused(sensitive, longer));
    // A count of 2^63 (past a bigint): the first class's cells replaced by id 0 and that count.
    std::string huge_cells = std::string(1, '\0') + std::string(9, char(0x80)) + char(0x01);
    uint32_t huge_length = static_cast<uint32_t>(huge_cells.size());
    std::string huge = run.substr(0, 8 + record - 6) + std::string(reinterpret_cast<const char*>(&huge_length), 4) +
                       huge_cells + run.substr(8 + record);
    EXPECT_TRUE(refused(sensitive, huge));
    huge_cells.back() = 0x00;  // 0 past the ninth byte: the count is 0 written long, also refused
    huge = run.substr(0, 8 + record - 6) + std::string(reinterpret_cast<const char*>(&huge_length), 4) + huge_cells +
           run.substr(8 + record);
    EXPECT_TRUE(refused(sensitive, huge));
    std::string swapped = run.substr(0, 8) + run.substr(8 + record, record) + run.substr(8, record);
    EXPECT_TRUE(refused(sensitive, swapped));
    // Merged, the two classes count 2 and 1 rows.
    const RunValues values = run_values({sensitive});
    const std::string part = merge_class_runs({run}, values);
    ContingencyTable t = ContingencyTable::from_canonical_parts(values.values, {part});
    EXPECT_EQ(t.classes(), 2);
    EXPECT_EQ(t.rows(), 3);
    // A part whose pairs are not in id order, or values not in canonical order, is refused.
    std::vector<std::optional<std::string>> two = {std::string("a"), std::string("b")};
    const std::string pairs = {'\x01', '\x01', '\x00', '\x01'};  // (1, 1), (0, 1): varint id and count
    uint64_t one = 1;
    auto entry = [&](int64_t multiplicity, const std::string& p) {
        uint32_t length = static_cast<uint32_t>(p.size());
        return std::string(reinterpret_cast<const char*>(&one), 8) + std::string(reinterpret_cast<const char*>(&multiplicity), 8) +
               std::string(reinterpret_cast<const char*>(&length), 4) + p;
    };
    EXPECT_THROW(ContingencyTable::from_canonical_parts(two, {entry(1, pairs)}), Error);
    const std::string ordered = pairs.substr(2) + pairs.substr(0, 2);
    EXPECT_EQ(ContingencyTable::from_canonical_parts(two, {entry(3, ordered)}).classes(), 3);
    EXPECT_EQ(ContingencyTable::from_canonical_parts(two, {entry(3, ordered)}).rows(), 6);
    EXPECT_EQ(ContingencyTable::from_canonical_parts(two, {entry(3, ordered)}).base(), (std::vector<int64_t>{3, 3}));
    EXPECT_THROW(ContingencyTable::from_canonical_parts(two, {entry(0, ordered)}), Error);
    EXPECT_THROW(ContingencyTable::from_canonical_parts(two, {entry(-2, ordered)}), Error);
    EXPECT_THROW(ContingencyTable::from_canonical_parts(two, {entry(1, "")}), Error);                    // no pairs
    EXPECT_THROW(ContingencyTable::from_canonical_parts(two, {entry(1, std::string{'\x02', '\x01'})}), Error);  // id 2 of 2
    EXPECT_THROW(ContingencyTable::from_canonical_parts(two, {entry(1, std::string{'\x00', '\x00'})}), Error);  // count 0
    EXPECT_THROW(ContingencyTable::from_canonical_parts(two, {entry(1, std::string{'\x00', '\x01', '\x00', '\x01'})}), Error);  // id twice
    EXPECT_THROW(ContingencyTable::from_canonical_parts(two, {entry(1, std::string{'\x00', '\x81'})}), Error);  // count cut short
    for (std::size_t cut = 0; cut < entry(1, ordered).size(); ++cut)  // truncated anywhere
        EXPECT_THROW(ContingencyTable::from_canonical_parts(two, {entry(1, ordered).substr(0, cut)}), Error) << cut;
    EXPECT_THROW(ContingencyTable::from_canonical_parts(two, {entry(1, ordered) + "x"}), Error);  // trailing bytes
    // A multiplicity whose rows pass 2^63 - 1 (a class of 2 rows) is refused, not wrapped.
    EXPECT_THROW(ContingencyTable::from_canonical_parts(two, {entry(INT64_MAX / 2 + 1, ordered)}), Error);
    EXPECT_THROW(ContingencyTable::from_canonical_parts({std::string("b"), std::string("a")}, {}), Error);
    EXPECT_THROW(ContingencyTable::from_canonical_parts({std::nullopt, std::string("a")}, {}), Error);
}

// Varints (LEB128) of class runs: every uint64 reads back as written, in the
// fewest bytes; a form past 64 bits or cut short is refused.
TEST(ClassRuns, VarintsReadBackAndRefuseDamagedForms) {
    std::mt19937_64 rng(61);
    std::vector<uint64_t> values = {0, 1, 127, 128, 16383, 16384, uint64_t(INT64_MAX), UINT64_MAX};
    for (int i = 0; i < 2000; ++i) values.push_back(rng() >> (rng() % 64));
    for (uint64_t v : values) {
        char buf[kMaxVarint];
        const std::size_t n = static_cast<std::size_t>(put_varint(buf, v) - buf);
        std::size_t want = 1;
        for (uint64_t x = v; x >= 128; x >>= 7) ++want;
        EXPECT_EQ(n, want) << v;
        ByteReader r{std::string_view(buf, n), "test"};
        EXPECT_EQ(r.varint(), v);
        EXPECT_TRUE(r.in.empty());
        for (std::size_t cut = 0; cut < n; ++cut) {
            ByteReader c{std::string_view(buf, cut), "test"};
            EXPECT_THROW(c.varint(), Error) << v << " cut to " << cut;
        }
    }
    const std::string past = std::string(9, char(0xff)) + char(0x02);  // bit 64 set
    ByteReader p{past, "test"};
    EXPECT_THROW(p.varint(), Error);
    const std::string eleven = std::string(10, char(0x80)) + char(0x00);
    ByteReader e{eleven, "test"};
    EXPECT_THROW(e.varint(), Error);
}

// Keyed classes (search's level-0 classes read in parallel): every class once,
// with its key and its (canonical value, count) pairs, as a std::map over the
// same rows groups them.
TEST(ClassRuns, KeyedRunsGiveEachClassWithItsKeyAndCounts) {
    std::mt19937 rng(67);
    for (int round = 0; round < 30; ++round) {
        const int qis = 1 + rng() % 3, rows = 1 + rng() % 3000, parts = 1 + rng() % 3;
        const std::size_t tasks = std::vector<std::size_t>{1, 5, 32}[rng() % 3];
        using Key = std::vector<std::optional<std::string>>;
        std::map<Key, std::map<std::optional<std::string>, int64_t>> want;
        std::vector<std::unique_ptr<ClassAggregator>> part;
        for (int p = 0; p < parts; ++p) part.push_back(std::make_unique<ClassAggregator>(std::pmr::new_delete_resource(), qis));
        for (int r = 0; r < rows; ++r) {
            std::vector<std::string> key(qis);
            std::vector<Value> qi(qis);
            Key tuple(qis);
            for (int i = 0; i < qis; ++i) {
                int v = rng() % 6;
                key[i] = std::string(1 + v, char('a' + v));
                qi[i] = v == 5 ? Value() : Value(key[i]);
                tuple[i] = v == 5 ? std::nullopt : std::optional<std::string>(key[i]);
            }
            int sv = rng() % 5;
            std::string text = "v" + std::to_string(sv);
            Value sensitive = sv == 4 ? Value() : Value(text);
            ++want[tuple][sv == 4 ? std::nullopt : std::optional<std::string>(text)];
            part[rng() % parts]->add(qi.data(), sensitive);
        }
        std::vector<std::string> sensitive;
        for (auto& p : part) sensitive.push_back(p->serialize_sensitive());
        const RunValues values = run_values(std::vector<std::string_view>(sensitive.begin(), sensitive.end()));
        std::map<Key, std::map<std::optional<std::string>, int64_t>> got;
        for (std::size_t t = 0; t < tasks; ++t) {
            std::vector<std::string> runs;
            for (auto& p : part) runs.push_back(p->serialize_run(t, tasks));
            std::string merged = merge_keyed_runs(std::vector<std::string_view>(runs.begin(), runs.end()), values);
            ByteReader r{merged, "test"};
            for (uint64_t n = r.get<uint64_t>(); n > 0; --n) {
                Key tuple = read_key(r, qis);
                EXPECT_EQ(got.count(tuple), 0u) << "a class in two tasks or twice in one";
                uint32_t pairs = r.get<uint32_t>();
                uint32_t previous = 0;
                for (uint32_t i = 0; i < pairs; ++i) {
                    uint32_t id = r.get<uint32_t>();
                    int64_t count = r.get<int64_t>();
                    ASSERT_LT(id, values.values.size());
                    if (i > 0) {
                        EXPECT_LT(previous, id) << "pairs in id order";
                    }
                    previous = id;
                    got[tuple][values.values[id]] = count;
                }
            }
            EXPECT_TRUE(r.in.empty());
        }
        EXPECT_EQ(got, want);
    }
}

namespace {

// A row's key texts, as class_tally's transition gives them: met only for a new value.
struct RowTexts final : ClassAggregator::Texts {
    const std::vector<std::string>* texts = nullptr;
    std::string_view text(std::size_t column) override { return (*texts)[column]; }
};

}  // namespace

// Tallies as they leave their servers (class_tally over shards): one keyed by
// texts, one by 4-byte and one by 8-byte binary forms of the same integers (a
// shard's column may be int where another's is bigint), one rebuilt from its
// partial state's bytes (a shard's own parallel plan). Merged in one pass they
// give the classes of all rows as one aggregator counts them, bit for bit.
TEST(ClassAggregator, TalliesOfServersWithOtherBinaryFormsMergeIntoTheOnePassClasses) {
    std::mt19937 rng(61);
    for (int round = 0; round < 30; ++round) {
        const int qis = 1 + rng() % 3, rows = 1 + rng() % 4000;
        ClassAggregator one(std::pmr::new_delete_resource(), qis);
        std::vector<std::unique_ptr<ClassAggregator>> server;
        for (int p = 0; p < 4; ++p)
            server.push_back(std::make_unique<ClassAggregator>(std::pmr::new_delete_resource(), qis, 1 + rng() % 900));
        for (int r = 0; r < rows; ++r) {
            const int at = rng() % 4;
            std::vector<std::string> text(qis), binary(qis);
            std::vector<Value> by_text(qis), by_binary(qis);
            for (int i = 0; i < qis; ++i) {
                const int64_t v = static_cast<int64_t>(rng() % 40) - 3;
                text[i] = std::to_string(v);
                binary[i].assign(at == 2 ? 8 : 4, '\0');
                if (at == 2) std::memcpy(binary[i].data(), &v, 8);
                else {
                    const int32_t narrow = static_cast<int32_t>(v);
                    std::memcpy(binary[i].data(), &narrow, 4);
                }
                const bool null = v == -3;
                by_text[i] = null ? Value() : Value(text[i]);
                by_binary[i] = null ? Value() : Value(binary[i]);
            }
            const int s = rng() % 12;
            const std::string sv = "s" + std::to_string(s);
            const Value sensitive = s == 11 ? Value() : Value(sv);
            one.add(by_text.data(), sensitive);
            RowTexts texts;
            texts.texts = &text;
            if (at == 0) server[0]->add(by_text.data(), sensitive);
            else server[at]->add(by_binary.data(), sensitive, &texts);
        }
        // Server 3's tally arrives as a partial state, merged into one keyed by texts.
        ClassAggregator rebuilt(std::pmr::new_delete_resource(), qis);
        rebuilt.merge_serialized(server[3]->serialize());
        std::vector<std::string> tallies = {server[0]->serialize_tally(), server[1]->serialize_tally(),
                                            server[2]->serialize_tally(), rebuilt.serialize_tally()};
        std::vector<ClassAggregator::TallyForm> forms;  // the runs the views below see
        std::vector<std::string_view> sensitive, runs;
        for (const std::string& t : tallies) forms.push_back(ClassAggregator::read_tally(t, qis));
        for (const ClassAggregator::TallyForm& form : forms) {
            sensitive.push_back(form.sensitive);
            runs.push_back(form.run);
        }
        const RunValues values = run_values(sensitive);
        const std::string part = merge_class_runs(runs, values);
        ContingencyTable got = ContingencyTable::from_canonical_parts(values.values, {part});
        ContingencyTable want = one.finish();
        EXPECT_EQ(got.classes(), want.classes());
        EXPECT_EQ(got.rows(), want.rows());
        EXPECT_EQ(got.values(), want.values());
        EXPECT_EQ(*k_anonymity(got), *k_anonymity(want));
        EXPECT_EQ(*a_know(got), *a_know(want));
        EXPECT_EQ(*t_equal(got), *t_equal(want));
        EXPECT_EQ(*l_entropy(got), *l_entropy(want));
        EXPECT_EQ(*records_at_risk(got, 0.2), *records_at_risk(want, 0.2));
    }
}

// A tally's head is checked: another version's form (no tag), another width, and
// every truncation are refused.
TEST(ClassAggregator, RefusesDamagedTallies) {
    ClassAggregator a(std::pmr::new_delete_resource(), 2);
    std::string x = "x", y = "yy";
    Value key[2] = {Value(x), Value(y)};
    a.add(key, Value(x));
    const std::string tally = a.serialize_tally();
    auto refused = [&](const std::string& bytes, std::size_t width) {
        try {
            ClassAggregator::TallyForm form = ClassAggregator::read_tally(bytes, width);
            merge_class_runs({form.run}, run_values({form.sensitive}));
        } catch (const Error&) {
            return true;
        }
        return false;
    };
    EXPECT_FALSE(refused(tally, 2));
    EXPECT_TRUE(refused(tally, 1));
    for (std::size_t n = 0; n < tally.size(); ++n) EXPECT_TRUE(refused(tally.substr(0, n), 2)) << n;
    EXPECT_TRUE(refused(tally + "z", 2));
    // A code past its column's values: the tally's first class's first code, after the head
    // (12 bytes), the sensitive values, the dictionaries (4 + 4 + 1, 4 + 4 + 2) and the count.
    std::string unknown = tally;
    const std::size_t first_code = 12 + a.serialize_sensitive().size() + 9 + 10 + 8;
    ASSERT_EQ(unknown[first_code], 1);
    unknown[first_code] = 2;
    EXPECT_TRUE(refused(unknown, 2));
    ClassAggregator old(std::pmr::new_delete_resource(), 2);  // the byte form of partial states: no tag
    old.add(key, Value(x));
    EXPECT_TRUE(refused(old.serialize(), 2));
    try {
        ClassAggregator::read_tally(old.serialize(), 2);
        ADD_FAILURE() << "an untagged form was read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("same privrisk version"), std::string::npos) << e.what();
    }
}

// The tally is the compact form of its run: codes into each column's values instead
// of every class's texts and hash (it crosses postgres_fdw as hex), read back into
// that very run.
TEST(ClassAggregator, TallyIsTheRunWithCodesInsteadOfTexts) {
    ClassAggregator a(std::pmr::new_delete_resource(), 3);
    std::mt19937 rng(7);
    const std::vector<std::string> sexes = {"Female", "Male"}, races = {"White", "Black", "Asian-Pac-Islander"};
    for (int r = 0; r < 20000; ++r) {
        const std::string age = std::to_string(17 + rng() % 70), zip = std::to_string(10000 + rng() % 600);
        const std::string sensitive = "occupation-" + std::to_string(rng() % 14);
        Value key[3] = {Value(age), Value(sexes[rng() % 2]), Value(zip)};
        a.add(key, Value(sensitive));
    }
    const std::string tally = a.serialize_tally(), run = a.serialize_run(0, 1);
    const ClassAggregator::TallyForm form = ClassAggregator::read_tally(tally, 3);
    EXPECT_EQ(std::string_view(form.run), run);
    EXPECT_EQ(std::string_view(form.sensitive), a.serialize_sensitive());
    EXPECT_LT(tally.size() * 2, run.size()) << tally.size() << " vs " << run.size();
}

// Two binary forms with one text (a float's NaN and -NaN both print NaN) are two codes
// in a tally keyed by binary forms, so its run holds their key twice in a row; the
// merge takes them as one class, with another server's class of that text too.
TEST(ClassAggregator, TwoBinaryFormsOfOneTextMergeIntoOneClass) {
    ClassAggregator binary(std::pmr::new_delete_resource(), 1), text(std::pmr::new_delete_resource(), 1);
    std::vector<std::string> nan = {"NaN"}, x = {"x"};
    RowTexts nan_text, x_text;
    nan_text.texts = &nan;
    x_text.texts = &x;
    const std::string s = "s", forms[3] = {"\x01", "\x02", "\x03"};
    for (int r = 0; r < 3; ++r)
        for (int f = 0; f < 2; ++f) {
            Value key[1] = {Value(forms[f])};
            binary.add(key, Value(s), &nan_text);
        }
    Value key_x[1] = {Value(forms[2])};
    binary.add(key_x, Value(s), &x_text);
    Value key_nan[1] = {Value(nan[0])};
    text.add(key_nan, Value(s));
    const std::string tallies[2] = {binary.serialize_tally(), text.serialize_tally()};
    const ClassAggregator::TallyForm a = ClassAggregator::read_tally(tallies[0], 1),
                                     b = ClassAggregator::read_tally(tallies[1], 1);
    const RunValues values = run_values({a.sensitive, b.sensitive});
    const std::string part = merge_class_runs({a.run, b.run}, values);
    ContingencyTable t = ContingencyTable::from_canonical_parts(values.values, {part});
    EXPECT_EQ(t.classes(), 2);
    EXPECT_EQ(t.rows(), 8);
    std::map<std::string, int64_t> got;
    const std::string keyed = merge_keyed_runs({a.run, b.run}, values);
    for_each_keyed_class(keyed, values.values.size(), [&](std::string_view key, const ContingencyTable::Pair* pairs, std::size_t n) {
        for_each_key_value(key, 1, [&](std::size_t, std::optional<std::string_view> v) {
            ASSERT_TRUE(v.has_value());
            for (std::size_t c = 0; c < n; ++c) got[std::string(*v)] += pairs[c].second;
        });
    });
    EXPECT_EQ(got, (std::map<std::string, int64_t>{{"NaN", 7}, {"x", 1}}));
}
