// Explicit hierarchies loaded from ARX-style CSV, with the validation of docs/hierarchy.md.
#include <unordered_map>

#include "common/error.hpp"
#include "hierarchy/hierarchy.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {
namespace {

class TreeHierarchy final : public Hierarchy {
public:
    struct TreeNode {
        std::string label;
        int level;
        long parent;  // -1 under the root ⊥
    };

    TreeHierarchy(std::string name, int height, std::vector<TreeNode> nodes)
        : Hierarchy(std::move(name), height), nodes_(std::move(nodes)) {
        // Nodes are ordered by level, so the first node met for a label is its lowest.
        index_.reserve(nodes_.size());
        for (std::size_t i = 0; i < nodes_.size(); ++i) index_.emplace(nodes_[i].label, static_cast<long>(i));
        leaves_.assign(nodes_.size(), 0);
        for (std::size_t i = 0; i < nodes_.size(); ++i)
            if (nodes_[i].level == 0)
                for (long id = static_cast<long>(i); id >= 0; id = nodes_[id].parent) ++leaves_[id];
    }

protected:
    Node locate(std::string_view node) const override {
        auto it = index_.find(node);
        if (it == index_.end()) not_in_hierarchy(node);
        return Node{nodes_[it->second].level, it->second};
    }

    std::string_view ancestor(std::string_view, Node where, int level, std::string&) const override {
        long id = where.id;
        for (int l = where.level; l < level; ++l) id = nodes_[id].parent;
        return nodes_[id].label;
    }

    double leaves_under(std::string_view, Node where) const override { return double(leaves_[where.id]); }

    bool lists_leaves() const override { return true; }
    std::optional<std::vector<std::string>> leaves_at(std::string_view label, int level,
                                                      std::size_t limit) const override {
        std::vector<std::string> out;
        for (const TreeNode& node : nodes_) {
            if (node.level > level) continue;  // a leaf, or an inner node at or below the level
            const TreeNode* n = &node;
            while (n->level < level && n->parent >= 0) n = &nodes_[n->parent];
            if (n->level != level || n->label != label) continue;
            if (out.size() == limit) return std::nullopt;
            out.push_back(node.label);
        }
        return out;
    }

private:
    std::vector<TreeNode> nodes_;
    std::vector<long> leaves_;  // per node
    std::unordered_map<std::string_view, long> index_;
};

[[noreturn]] void bad_line(long line, const std::string& what) {
    fail(ErrorKind::BadFormat, "line " + std::to_string(line) + ": " + what);
}

}  // namespace

std::unique_ptr<Hierarchy> make_tree_hierarchy(const std::string& name, const std::vector<CsvRecord>& records) {
    if (records.empty())
        fail(ErrorKind::BadFormat, "hierarchy " + quote_value(name) + " is empty: no line holds a value");
    const CsvRecord& first = records.front();
    const std::size_t width = first.fields.size();
    if (width < 2)
        bad_line(first.line, "a hierarchy line needs at least two columns, the value and the root (e.g. \"a;*\")");
    if (width - 1 > static_cast<std::size_t>(kMaxHeight))
        bad_line(first.line, "a hierarchy may have at most " + std::to_string(kMaxHeight) + " levels");
    const std::string& root = first.fields.back();
    const int height = static_cast<int>(width) - 1;

    // Per level: label -> node index; nodes are appended per level after the scan.
    struct Seen {
        std::string parent;
        long line;
    };
    std::vector<std::unordered_map<std::string, Seen>> levels(height);
    std::vector<std::vector<std::string>> order(height);  // first-seen order, for stable node ids
    for (const CsvRecord& rec : records) {
        const auto& f = rec.fields;
        if (f.size() != width) {
            if (!f.empty() && f.back() == root)
                bad_line(rec.line, "unequal depth: value " + quote_value(f.front()) + " reaches the root in " +
                                       std::to_string(f.size() - 1) + " steps, but the value on line " +
                                       std::to_string(first.line) + " in " + std::to_string(height));
            bad_line(rec.line, "has " + std::to_string(f.size()) + " fields, expected " + std::to_string(width) +
                                   " as on line " + std::to_string(first.line));
        }
        for (std::size_t i = 0; i < width; ++i)
            if (f[i].empty()) bad_line(rec.line, "field " + std::to_string(i + 1) + " is empty");
        if (f.back() != root)
            bad_line(rec.line, "the last column is the root and must be " + quote_value(root) + " as on line " +
                                   std::to_string(first.line) + ", found " + quote_value(f.back()));
        for (int i = 0; i < height; ++i) {
            if (f[i] == root)
                bad_line(rec.line, "the root label " + quote_value(root) + " appears at level " + std::to_string(i) +
                                       "; it may only stand in the last column");
            const std::string& parent = (i + 1 == height) ? root : f[i + 1];
            auto [it, inserted] = levels[i].try_emplace(f[i], Seen{parent, rec.line});
            if (inserted) {
                order[i].push_back(f[i]);
                continue;
            }
            if (i == 0) {
                if (it->second.parent == parent)
                    bad_line(rec.line, "duplicate leaf " + quote_value(f[0]) + " (first on line " +
                                           std::to_string(it->second.line) + ")");
                bad_line(rec.line, "value " + quote_value(f[0]) +
                                       " has two parents: " + quote_value(it->second.parent) + " on line " +
                                       std::to_string(it->second.line) + " and " + quote_value(parent) + " here");
            }
            if (it->second.parent != parent)
                bad_line(rec.line, "levels are not nested: the level-" + std::to_string(i) + " group " +
                                       quote_value(f[i]) + " lies under " + quote_value(it->second.parent) +
                                       " on line " + std::to_string(it->second.line) + " but under " +
                                       quote_value(parent) + " here");
        }
    }

    // Build nodes level by level; parents are on the next level.
    std::vector<TreeHierarchy::TreeNode> nodes;
    std::vector<std::unordered_map<std::string, long>> ids(height);
    for (int i = 0; i < height; ++i)
        for (const std::string& label : order[i]) {
            ids[i].emplace(label, static_cast<long>(nodes.size()));
            nodes.push_back({label, i, -1});
        }
    for (auto& node : nodes)
        if (node.level + 1 < height) node.parent = ids[node.level + 1].at(levels[node.level].at(node.label).parent);

    // A label may name several levels only along one chain ("Other;Other;*");
    // otherwise a value would have two parents, or the levels would form a cycle.
    std::unordered_map<std::string, long> lowest;
    for (std::size_t id = 0; id < nodes.size(); ++id) {
        auto [it, inserted] = lowest.try_emplace(nodes[id].label, static_cast<long>(id));
        if (inserted) continue;
        long low = it->second;
        long up = low;
        while (up != -1 && nodes[up].level < nodes[id].level) up = nodes[up].parent;
        if (up != static_cast<long>(id)) {
            // Report on the later of the two lines, naming the earlier one.
            const Seen* here = &levels[nodes[id].level].at(nodes[id].label);
            const Seen* there = &levels[nodes[low].level].at(nodes[low].label);
            int here_level = nodes[id].level, there_level = nodes[low].level;
            if (here->line < there->line) {
                std::swap(here, there);
                std::swap(here_level, there_level);
            }
            bad_line(here->line,
                     "value " + quote_value(nodes[id].label) + " has two parents: " + quote_value(here->parent) +
                         " at level " + std::to_string(here_level + 1) + " here and " + quote_value(there->parent) +
                         " at level " + std::to_string(there_level + 1) + " on line " + std::to_string(there->line));
        }
    }
    return std::make_unique<TreeHierarchy>(name, height, std::move(nodes));
}

}  // namespace privrisk
