#include "information/classifier.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

uint64_t fnv1a(const char* bytes, std::size_t n, uint64_t h) {
    for (std::size_t i = 0; i < n; ++i) {
        h ^= static_cast<unsigned char>(bytes[i]);
        h *= 0x100000001b3ull;
    }
    return h;
}

namespace {

uint32_t argmax(const std::vector<double>& score) {
    uint32_t best = 0;
    for (uint32_t c = 1; c < score.size(); ++c)
        if (score[c] > score[best]) best = c;  // ties: the smallest class
    return best;
}

uint32_t argmax(const std::vector<int64_t>& count) {
    uint32_t best = 0;
    for (uint32_t c = 1; c < count.size(); ++c)
        if (count[c] > count[best]) best = c;
    return best;
}

// Naive Bayes on the rows outside `test_fold`, predicting those inside.
int64_t naive_bayes_fold(const LabeledRows& d, uint32_t test_fold) {
    const std::size_t n = d.target.size(), w = d.width, k = d.classes;
    std::vector<int64_t> class_count(k, 0);
    std::vector<std::vector<int64_t>> count(w);  // count[f][value * k + class]
    for (std::size_t f = 0; f < w; ++f) count[f].assign(std::size_t(d.cardinality[f]) * k, 0);
    int64_t trained = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (d.fold[i] == test_fold) continue;
        ++trained;
        ++class_count[d.target[i]];
        for (std::size_t f = 0; f < w; ++f) ++count[f][std::size_t(d.features[i * w + f]) * k + d.target[i]];
    }
    if (trained == 0) return 0;
    // log P(c) + Σ_f log((count + 1) / (class + |domain_f|)), as sklearn's CategoricalNB(alpha=1).
    std::vector<double> log_prior(k), score(k);
    for (std::size_t c = 0; c < k; ++c)
        log_prior[c] = class_count[c] ? std::log(double(class_count[c]) / double(trained))
                                      : -std::numeric_limits<double>::infinity();
    int64_t correct = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (d.fold[i] != test_fold) continue;
        for (std::size_t c = 0; c < k; ++c) {
            double s = log_prior[c];
            for (std::size_t f = 0; f < w; ++f)
                s += std::log(double(count[f][std::size_t(d.features[i * w + f]) * k + c] + 1) /
                              double(class_count[c] + int64_t(d.cardinality[f])));
            score[c] = s;
        }
        correct += argmax(score) == d.target[i];
    }
    return correct;
}

int64_t majority_fold(const LabeledRows& d, uint32_t test_fold) {
    const std::size_t n = d.target.size(), w = d.width, k = d.classes;
    std::map<std::vector<uint32_t>, std::vector<int64_t>> by_tuple;
    std::vector<int64_t> overall(k, 0);
    for (std::size_t i = 0; i < n; ++i) {
        if (d.fold[i] == test_fold) continue;
        auto& counts = by_tuple[std::vector<uint32_t>(d.features.begin() + i * w, d.features.begin() + (i + 1) * w)];
        if (counts.empty()) counts.assign(k, 0);
        ++counts[d.target[i]];
        ++overall[d.target[i]];
    }
    const uint32_t fallback = argmax(overall);
    int64_t correct = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (d.fold[i] != test_fold) continue;
        auto it = by_tuple.find(std::vector<uint32_t>(d.features.begin() + i * w, d.features.begin() + (i + 1) * w));
        uint32_t guess = it == by_tuple.end() ? fallback : argmax(it->second);
        correct += guess == d.target[i];
    }
    return correct;
}

}  // namespace

CrossValidation cross_validate(const LabeledRows& d, ClassifierKind kind, uint32_t folds) {
    const std::size_t n = d.target.size();
    if (folds < 2)
        fail(ErrorKind::InvalidParameter, "cross-validation needs at least 2 folds, got " + std::to_string(folds));
    if (d.fold.size() != n || d.features.size() != n * d.width || d.cardinality.size() != d.width)
        fail(ErrorKind::Internal, "labeled rows of inconsistent sizes");
    if (n == 0) fail(ErrorKind::InvalidParameter, "no rows to classify");
    for (std::size_t i = 0; i < n; ++i)
        if (d.fold[i] >= folds || d.target[i] >= d.classes) fail(ErrorKind::Internal, "a fold or class out of range");
    CrossValidation cv{0, 0, int64_t(n)};
    for (uint32_t f = 0; f < folds; ++f)
        cv.correct += kind == ClassifierKind::NaiveBayes ? naive_bayes_fold(d, f) : majority_fold(d, f);
    cv.accuracy = double(cv.correct) / double(n);
    return cv;
}

}  // namespace privrisk
