// Workload utility (Brickell & Shmatikov, KDD'08 §5; [BS08]): the
// cross-validated accuracy of a classifier that predicts a target column from
// the other published columns, on a release and on its trivial sanitizations.
#pragma once

#include <cstdint>
#include <vector>

namespace privrisk {

// Rows as codes: features[i * width + f] in 0..cardinality[f]-1, target[i] in
// 0..classes-1, fold[i] in 0..folds-1. Codes are assigned in the values'
// sorted order, so ties between classes go to the smallest value.
struct LabeledRows {
    std::size_t width = 0;
    std::vector<uint32_t> features, target, cardinality;
    uint32_t classes = 0;
    std::vector<uint32_t> fold;
};

enum class ClassifierKind {
    NaiveBayes,    // categorical naive Bayes, Laplace smoothing α = 1 over each feature's full domain
    MajorityClass  // the training rows' most frequent target among those with the same feature tuple
};

struct CrossValidation {
    double accuracy;  // correct predictions / rows, over every fold's test rows
    int64_t correct, rows;
};

// Each fold is tested once with a classifier trained on the other folds.
CrossValidation cross_validate(const LabeledRows& data, ClassifierKind kind, uint32_t folds);

// A row's fold: FNV-1a (64 bit) of its values (each followed by 0x1f, NULL as
// 0x1e) plus the row's occurrence among identical rows, modulo `folds`. Depends
// on the row's content only, so the assignment is the same in any scan order.
uint64_t fnv1a(const char* bytes, std::size_t n, uint64_t h = 0xcbf29ce484222325ull);

}  // namespace privrisk
