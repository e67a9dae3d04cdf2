#include "dtrisk/identification.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

double jaro(std::string_view a, std::string_view b) {
    if (a.empty() && b.empty()) return 1;
    if (a.empty() || b.empty()) return 0;
    const std::size_t window = std::max<std::size_t>(std::max(a.size(), b.size()) / 2, 1) - 1;
    std::vector<char> a_matched(a.size(), 0), b_matched(b.size(), 0);
    std::size_t m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        std::size_t lo = i > window ? i - window : 0, hi = std::min(b.size(), i + window + 1);
        for (std::size_t j = lo; j < hi; ++j)
            if (!b_matched[j] && a[i] == b[j]) {
                a_matched[i] = b_matched[j] = 1;
                ++m;
                break;
            }
    }
    if (m == 0) return 0;
    std::size_t transpositions = 0, j = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (!a_matched[i]) continue;
        while (!b_matched[j]) ++j;
        if (a[i] != b[j]) ++transpositions;
        ++j;
    }
    const double t = double(transpositions / 2);
    return (double(m) / a.size() + double(m) / b.size() + (double(m) - t) / double(m)) / 3;
}

// One attribute: values (of both sides) as codes; per code its level and its
// ancestors' node ids from that level up to ⊥ (node 0).
struct MatchCounter::Attribute {
    const Hierarchy* hierarchy;
    int height;  // an attribute without hierarchy has two levels: the value and ⊥
    FlatIndex values{std::pmr::new_delete_resource()};
    std::vector<uint32_t> code_of;                 // values index -> code
    std::vector<int> level;                        // code -> level
    std::vector<std::vector<uint32_t>> ancestors;  // code -> node at level[code] + i
    // code -> value (⊥: empty, code 0). A deque: released_values() hands out
    // views into these strings, and codes are added while they are in use (a
    // vector's growth would move short strings and leave the views dangling).
    std::deque<std::string> text;
    FlatIndex nodes{std::pmr::new_delete_resource()};

    explicit Attribute(const Hierarchy* h) : hierarchy(h), height(h ? h->height() : 1) {
        level.push_back(height);  // code 0 is ⊥, node 0 is ⊥
        ancestors.push_back({0});
        text.emplace_back();
        nodes.find_or_add("\x01⊥");
    }

    uint32_t node(std::string_view label) { return nodes.find_or_add(std::string("\x02") + std::string(label)); }

    uint32_t code(Value v) {
        if (!v) return 0;
        bool added;
        uint32_t i = values.find_or_add(*v, &added);
        if (!added) return code_of[i];
        const uint32_t c = static_cast<uint32_t>(level.size());
        code_of.push_back(c);
        text.emplace_back(*v);
        if (!hierarchy) {
            level.push_back(0);
            ancestors.push_back({node(*v), 0});
            return c;
        }
        const int at = hierarchy->level_of(*v);
        level.push_back(at);
        std::vector<uint32_t> up;
        std::string scratch;
        for (int l = at; l <= height; ++l) {
            Value g = hierarchy->generalize(*v, l, scratch);
            up.push_back(g ? node(*g) : 0);
        }
        ancestors.push_back(std::move(up));
        return c;
    }

    uint32_t node_at(uint32_t c, int m) const { return ancestors[c][m - level[c]]; }
};

// The dictionary's tuples with their multiplicities. A tuple may be listed
// more than once: every count sums multiplicities, so the entries need no index.
struct MatchCounter::Entries {
    std::vector<uint32_t> codes;
    std::vector<int64_t> times;
    const uint32_t* tuple(std::size_t e, std::size_t width) const { return codes.data() + e * width; }
};

MatchCounter::MatchCounter(std::vector<const Hierarchy*> hierarchies, Mode mode, double threshold)
    : mode_(mode), threshold_(threshold) {
    if (hierarchies.empty()) fail(ErrorKind::InvalidParameter, "a mapping needs at least one attribute");
    if (!(threshold >= 0 && threshold <= 1))
        fail(ErrorKind::InvalidParameter, "the Jaro threshold must be in [0, 1], got " + number_text(threshold));
    for (const Hierarchy* h : hierarchies) attributes_.push_back(std::make_unique<Attribute>(h));
    dictionary_ = std::make_unique<Entries>();
    released_ = std::make_unique<CodeTuples>(std::pmr::new_delete_resource(), hierarchies.size());
}

MatchCounter::~MatchCounter() = default;

std::size_t MatchCounter::entries() const { return dictionary_->times.size(); }
std::size_t MatchCounter::released() const { return released_->size(); }

std::vector<uint32_t> MatchCounter::codes(const std::vector<Value>& values) {
    if (values.size() != attributes_.size()) fail(ErrorKind::Internal, "a tuple of the wrong width");
    std::vector<uint32_t> c(values.size());
    for (std::size_t j = 0; j < values.size(); ++j) c[j] = attributes_[j]->code(values[j]);
    return c;
}

int MatchCounter::height(std::size_t j) const { return attributes_.at(j)->height; }

int MatchCounter::level(std::size_t j, Value v) { return attributes_.at(j)->level[code(j, v)]; }

void MatchCounter::add_entry(const std::vector<Value>& values, int64_t times) {
    add_entry_codes(codes(values).data(), times);
}

uint32_t MatchCounter::add_released(const std::vector<Value>& values) {
    return released_->add(codes(values).data(), 1);
}

uint32_t MatchCounter::code(std::size_t j, Value v) { return attributes_.at(j)->code(v); }

void MatchCounter::add_entry_codes(const uint32_t* c, int64_t times) {
    if (index_) fail(ErrorKind::Internal, "a dictionary entry added after counting began");
    dictionary_->codes.insert(dictionary_->codes.end(), c, c + attributes_.size());
    dictionary_->times.push_back(times);
}

uint32_t MatchCounter::add_released_codes(const uint32_t* c, int64_t times) { return released_->add(c, times); }

void MatchCounter::reserve_released(std::size_t tuples) { released_->reserve(tuples); }

int64_t MatchCounter::released_rows(uint32_t id) const { return released_->times(id); }

std::vector<Value> MatchCounter::released_values(uint32_t id) const {
    const uint32_t* t = released_->tuple(id);
    std::vector<Value> out;
    for (std::size_t j = 0; j < attributes_.size(); ++j)
        out.push_back(t[j] == 0 ? Value() : Value(attributes_[j]->text[t[j]]));
    return out;
}

// The exact-mode lookup structure, built on first use from the dictionary.
struct MatchCounter::Index {
    // Dictionary tuples by level signature.
    std::map<std::vector<int>, std::vector<uint32_t>> groups;
    // (signature, m) -> the group's entries generalized to m, counted.
    struct Table {
        FlatIndex keys{std::pmr::new_delete_resource()};
        std::vector<int64_t> counts;
    };
    std::map<std::pair<std::vector<int>, std::vector<int>>, Table> tables;
    // Per released signature: the (table, levels) to look up in, one per group.
    struct Lookup {
        Table* table;
        std::vector<int> m;
    };
    FlatIndex signatures{std::pmr::new_delete_resource()};
    std::vector<std::vector<Lookup>> lookups;
};

int64_t MatchCounter::count_codes(const uint32_t* y) {
    const std::size_t width = attributes_.size();
    int64_t count = 0;
    if (mode_ == Mode::Jaro) {
        for (std::size_t e = 0; e < dictionary_->times.size(); ++e) {
            const uint32_t* d = dictionary_->tuple(e, width);
            bool consistent = true;
            for (std::size_t j = 0; j < width && consistent; ++j) {
                if (y[j] == 0 || d[j] == 0 || y[j] == d[j]) continue;
                consistent = jaro(attributes_[j]->text[y[j]], attributes_[j]->text[d[j]]) >= threshold_;
            }
            if (consistent) count += dictionary_->times[e];
        }
        return count;
    }
    if (!index_) {
        index_ = std::make_unique<Index>();
        for (std::size_t e = 0; e < dictionary_->times.size(); ++e) {
            const uint32_t* d = dictionary_->tuple(e, width);
            std::vector<int> sig(width);
            for (std::size_t j = 0; j < width; ++j) sig[j] = attributes_[j]->level[d[j]];
            index_->groups[sig].push_back(static_cast<uint32_t>(e));
        }
    }
    Index& ix = *index_;
    std::vector<uint32_t> key(width);
    uint64_t word;
    auto key_view = [&] { return tuple_key(key.data(), width, &word); };
    std::vector<int> r_sig(width);
    for (std::size_t j = 0; j < width; ++j) r_sig[j] = attributes_[j]->level[y[j]];
    uint32_t si =
        ix.signatures.find_or_add(std::string_view(reinterpret_cast<const char*>(r_sig.data()), width * sizeof(int)));
    if (si == ix.lookups.size()) {
        std::vector<Index::Lookup> list;
        for (const auto& [sig, members] : ix.groups) {
            std::vector<int> m(width);
            for (std::size_t j = 0; j < width; ++j) m[j] = std::max(sig[j], r_sig[j]);
            auto [it, fresh] = ix.tables.try_emplace({sig, m});
            Index::Table& t = it->second;
            if (fresh) {
                t.keys.reserve(members.size());
                for (uint32_t e : members) {
                    const uint32_t* d = dictionary_->tuple(e, width);
                    for (std::size_t j = 0; j < width; ++j) key[j] = attributes_[j]->node_at(d[j], m[j]);
                    uint32_t i = t.keys.find_or_add(key_view());
                    if (i == t.counts.size()) t.counts.push_back(0);
                    t.counts[i] += dictionary_->times[e];
                }
            }
            list.push_back(Index::Lookup{&t, std::move(m)});
        }
        ix.lookups.push_back(std::move(list));
    }
    for (const Index::Lookup& l : ix.lookups[si]) {
        for (std::size_t j = 0; j < width; ++j) key[j] = attributes_[j]->node_at(y[j], l.m[j]);
        uint32_t i = l.table->keys.find(key_view());
        if (i != FlatIndex::kAbsent) count += l.table->counts[i];
    }
    return count;
}

int64_t MatchCounter::count_one(const std::vector<Value>& values) {
    std::vector<uint32_t> c = codes(values);
    return count_codes(c.data());
}

std::vector<int64_t> MatchCounter::count() {
    if (mode_ == Mode::Jaro && double(released_->size()) * double(dictionary_->times.size()) > kMaxJaroPairs)
        fail(ErrorKind::ProgramLimit,
             "Jaro matching compares every distinct released tuple with every distinct "
             "dictionary tuple: " +
                 std::to_string(released_->size()) + " x " + std::to_string(dictionary_->times.size()) +
                 " is over the limit");
    std::vector<int64_t> counts(released_->size(), 0);
    for (std::size_t r = 0; r < released_->size(); ++r) counts[r] = count_codes(released_->tuple(r));
    return counts;
}

}  // namespace privrisk
