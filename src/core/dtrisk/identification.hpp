// Identification against an attacker's dictionary ([LSFB09] §3; decisions D and A1 in docs/dtrisk.md):
// |ρ(y, θ)| = the dictionary entries consistent with a released record y.
// Exact mode: on every mapped attribute, y_j or e_j is ⊥, or one is an
// ancestor-or-self of the other in the attribute's hierarchy (equality when the
// attribute has none). Either side may be generalized or ⊥.
//
// Counting works on distinct tuples. Dictionary tuples are grouped by their
// level signature s (the level of each value, ⊥ at the height); a released
// tuple y with signature r is consistent with an entry e of group s iff y and e
// have the same ancestors at the levels m = max(s, r). So each (s, m) needs one
// hash table of the group's entries generalized to m, built once, and each
// released tuple costs one lookup per dictionary signature.
//
// Jaro mode (§7.2, A13): per non-⊥ attribute, jaro(y_j, e_j) ≥ threshold;
// pairwise over distinct tuples.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/flat_index.hpp"
#include "hierarchy/hierarchy.hpp"
#include "classes/tuple_tally.hpp"

namespace privrisk {

// Standard Jaro similarity ([LSFB09]; decision P): case-sensitive, over bytes.
double jaro(std::string_view a, std::string_view b);

class MatchCounter {
public:
    enum class Mode { Exact, Jaro };
    // One entry per mapped attribute: its hierarchy (nullptr: plain equality).
    MatchCounter(std::vector<const Hierarchy*> hierarchies, Mode mode = Mode::Exact, double threshold = 0.8);
    ~MatchCounter();
    MatchCounter(const MatchCounter&) = delete;
    MatchCounter& operator=(const MatchCounter&) = delete;

    // A dictionary entry, by its values (nullopt: ⊥), `times` identical entries.
    void add_entry(const std::vector<Value>& values, int64_t times = 1);
    // A released tuple's id (equal tuples share it), then its count.
    uint32_t add_released(const std::vector<Value>& values);
    // The same by codes (code(j, v) for attribute j; 0 is ⊥), for callers that
    // code each distinct value once.
    uint32_t code(std::size_t j, Value v);
    void add_entry_codes(const uint32_t* codes, int64_t times = 1);
    uint32_t add_released_codes(const uint32_t* codes, int64_t times = 1);
    // A distinct released tuple: how many released rows hold it, and its values.
    int64_t released_rows(uint32_t id) const;
    std::vector<Value> released_values(uint32_t id) const;
    // |ρ| of every released tuple added so far, by id. Entries may not be added
    // after the first count.
    std::vector<int64_t> count();
    // |ρ| of one more tuple (the optimal-disclosure search asks node by node).
    int64_t count_one(const std::vector<Value>& values);
    // The level of a value in attribute j's hierarchy (⊥: the height).
    int level(std::size_t j, Value v);
    int height(std::size_t j) const;

    static constexpr double kMaxJaroPairs = 2e9;
    std::size_t entries() const;  // dictionary tuples as added (equal ones may repeat)
    void reserve_released(std::size_t tuples);
    std::size_t released() const;  // distinct released tuples

private:
    struct Attribute;
    struct Index;
    std::vector<std::unique_ptr<Attribute>> attributes_;
    struct Entries;
    std::unique_ptr<Entries> dictionary_;
    std::unique_ptr<CodeTuples> released_;
    std::unique_ptr<Index> index_;
    int64_t count_codes(const uint32_t* tuple);
    Mode mode_;
    double threshold_;
    std::vector<uint32_t> codes(const std::vector<Value>& values);
};

}  // namespace privrisk
