// Cross-validated classifiers against plain reference implementations.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "information/classifier.hpp"
#include "test_support.hpp"

using namespace privrisk;

namespace {

LabeledRows random_rows(std::mt19937_64& rng, std::size_t n, std::size_t width, uint32_t folds) {
    LabeledRows d;
    d.width = width;
    d.classes = 2 + rng() % 3;
    for (std::size_t f = 0; f < width; ++f) d.cardinality.push_back(1 + rng() % 5);
    for (std::size_t i = 0; i < n; ++i) {
        uint32_t sum = 0;
        for (std::size_t f = 0; f < width; ++f) {
            uint32_t v = rng() % d.cardinality[f];
            d.features.push_back(v);
            sum += v;
        }
        // a target that depends on the features, with noise
        d.target.push_back(rng() % 4 == 0 ? rng() % d.classes : sum % d.classes);
        d.fold.push_back(i % folds);
    }
    return d;
}

// Naive Bayes as products of probabilities (no logs), one test row at a time.
int64_t reference_naive_bayes(const LabeledRows& d, uint32_t folds) {
    int64_t correct = 0;
    for (std::size_t i = 0; i < d.target.size(); ++i) {
        std::vector<double> score(d.classes);
        for (uint32_t c = 0; c < d.classes; ++c) {
            double n_c = 0, n = 0;
            std::vector<double> match(d.width, 0);
            for (std::size_t j = 0; j < d.target.size(); ++j) {
                if (d.fold[j] == d.fold[i]) continue;
                ++n;
                if (d.target[j] != c) continue;
                ++n_c;
                for (std::size_t f = 0; f < d.width; ++f) match[f] += d.features[j * d.width + f] == d.features[i * d.width + f];
            }
            double s = n_c / n;
            for (std::size_t f = 0; f < d.width; ++f) s *= (match[f] + 1) / (n_c + d.cardinality[f]);
            score[c] = s;
        }
        uint32_t best = 0;
        for (uint32_t c = 1; c < d.classes; ++c)
            if (score[c] > score[best] * (1 + 1e-12)) best = c;
        correct += best == d.target[i];
    }
    (void)folds;
    return correct;
}

}  // namespace

TEST(Classifier, NaiveBayesMatchesAPlainReference) {
    std::mt19937_64 rng(3);
    for (int trial = 0; trial < 30; ++trial) {
        LabeledRows d = random_rows(rng, 60 + rng() % 60, 1 + rng() % 3, 5);
        auto cv = cross_validate(d, ClassifierKind::NaiveBayes, 5);
        EXPECT_EQ(cv.correct, reference_naive_bayes(d, 5)) << "trial " << trial;
        EXPECT_EQ(cv.rows, int64_t(d.target.size()));
    }
}

TEST(Classifier, LearnableTargetsAreLearned) {
    // target = feature 0's parity: both classifiers are right on every row.
    LabeledRows d;
    d.width = 2;
    d.classes = 2;
    d.cardinality = {4, 3};
    for (uint32_t i = 0; i < 200; ++i) {
        d.features.push_back(i % 4);
        d.features.push_back(i % 3);
        d.target.push_back(i % 4 % 2);
        d.fold.push_back(i % 10);
    }
    EXPECT_DOUBLE_EQ(cross_validate(d, ClassifierKind::MajorityClass, 10).accuracy, 1.0);
    EXPECT_DOUBLE_EQ(cross_validate(d, ClassifierKind::NaiveBayes, 10).accuracy, 1.0);
    // Without information (one constant feature), both predict the training majority.
    LabeledRows flat = d;
    flat.width = 1;
    flat.cardinality = {1};
    flat.features.assign(200, 0);
    for (uint32_t i = 0; i < 200; ++i) flat.target[i] = i % 5 == 0;  // 20 % ones
    EXPECT_DOUBLE_EQ(cross_validate(flat, ClassifierKind::MajorityClass, 10).accuracy, 0.8);
    EXPECT_DOUBLE_EQ(cross_validate(flat, ClassifierKind::NaiveBayes, 10).accuracy, 0.8);
}

TEST(Classifier, FoldHashIsFnv1a) {
    EXPECT_EQ(fnv1a("", 0), 0xcbf29ce484222325ull);
    EXPECT_EQ(fnv1a("a", 1), 0xaf63dc4c8601ec8cull);  // the published FNV-1a 64 test vector
    EXPECT_EQ(fnv1a("foobar", 6), 0x85944171f73967e8ull);
    EXPECT_NE(privrisk_test::error_of([] { cross_validate(LabeledRows{}, ClassifierKind::NaiveBayes, 10); })
                  .find("no rows"),
              std::string::npos);
    EXPECT_NE(privrisk_test::error_of([] { cross_validate(LabeledRows{}, ClassifierKind::NaiveBayes, 1); })
                  .find("at least 2 folds"),
              std::string::npos);
}
