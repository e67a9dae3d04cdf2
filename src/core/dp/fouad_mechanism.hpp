// Fouad's private generalization mechanism (thesis Algorithm 6; [Fou12]
// §3.8–3.9, §4.5, resolutions A2–A12): keep each record with probability
// 1 − β, draw a frequency threshold t = θ|D| with θ ~ U(θ0, 1), and give each
// kept record a generalization x of its own values, chosen among the
// t-frequent ones (|ρ(x, D)| ≥ t) by the exponential mechanism:
//
//   aggregate: p(x) ∝ exp(ε′·f(x)/|D|),  f = λ|ρ|/Φ + u^κ,  Φ(x) > 0 required (A5)
//   risk:      p(x) ∝ exp(−ε′·r(x)/|D|), r = Φ/|ρ|
//   ε′ = (ε + ln β) / (3η(1 − β)),  η = 2(λ/φ_l + 1) (aggregate) or φ_u (risk)
//
// u(x) = Σ_i (h_i − x_i), the depth utility; Φ(x) = Σ_i w_i(anc_i(a_i, x_i)).
// φ_l, φ_u come from the weight schema, never from the data (A7). A record with
// no admissible generalization is released as all ⊥ (A9). Candidates are level
// vectors in lexicographic order and normalized over the support (A8).
#pragma once

#include <cstdint>
#include <functional>
#include <memory_resource>
#include <string>
#include <vector>

#include "common/flat_index.hpp"
#include "dp/dp_random.hpp"

namespace privrisk {

enum class FouadScore { Aggregate, Risk };

struct FouadParameters {
    double epsilon = 1;
    double drop = 0.5;  // β: the probability that a record is not kept, e^(−ε) < β < 1
    double theta0 = 0.01;
    double lambda = 1;
    int kappa = 1;
    FouadScore score = FouadScore::Aggregate;
};

// One quasi-identifier: its distinct values as codes, generalized per level.
struct FouadDimension {
    int height = 0;                               // levels 0..height; height is ⊥
    std::vector<std::vector<uint32_t>> ancestor;  // [level][code]: the generalized value's id at that level
    std::vector<std::vector<double>> weight;      // [level][code]: w_i of that ancestor (⊥: 0 under harmonic)
    std::vector<bool> suppressed;                 // [code]: the value is ⊥ (NULL) already
};

// ε′ of the thesis, and the checks of A3 (e^(−ε) < β < 1) and of the parameters.
double fouad_scale(const FouadParameters& p, double phi_l, double phi_u);
void check_fouad_parameters(const FouadParameters& p);

// The δ-conditions of Theorem 6.4.1 as derived for this implementation (§3.9 items 4–5):
// m ≥ ln(2/δ)/(0.1081977(1 − β)), and the smallest threshold t = θ0·m must
// satisfy (1 − τ1)βt ≥ t′ with τ1 = √(2 ln(2h^k/δ)/(βt)) and
// t′ = β² h^k e^(ε′·t_f)/(1 − β). An error explains which fails.
void check_fouad_delta(const FouadParameters& p, double delta, int64_t rows, int max_chain, int dimensions,
                       double tilt);
// ε′·t_f of those conditions: (ε + ln β)/(6(1 − β)) for the aggregate score,
// scale·φ_u for the risk score.
double fouad_tilt(const FouadParameters& p, double scale, double phi_u);

class FouadMechanism {
public:
    FouadMechanism(std::vector<FouadDimension> dims, const FouadParameters& p, double phi_l, double phi_u);

    // Rows of D with these codes, of which `kept` were sampled.
    void add(const uint32_t* codes, int64_t rows, int64_t kept) {
        auto key = std::string_view(reinterpret_cast<const char*>(codes), dims_.size() * sizeof(uint32_t));
        uint32_t i = index_.find_or_add(key);
        if (i == counts_.size()) {
            counts_.push_back(0);
            kept_.push_back(0);
            codes_.insert(codes_.end(), codes, codes + dims_.size());
        }
        counts_[i] += rows;
        kept_[i] += kept;
        total_ += rows;
    }

    // A candidate generalization of one distinct row, with its probability.
    struct Choice {
        std::vector<int> levels;
        double probability;
        int64_t rho;
        double phi, utility, score;
    };
    // The distinct rows in the order they were first added, and their counts.
    std::size_t tuples() const { return counts_.size(); }
    const uint32_t* tuple(std::size_t i) const { return codes_.data() + i * dims_.size(); }
    int64_t rows(std::size_t i) const { return counts_[i]; }
    int64_t kept(std::size_t i) const { return kept_[i]; }
    int64_t total_rows() const { return total_; }

    // The exponential-mechanism distribution of distinct row i at threshold t
    // (empty: no admissible generalization). Needs prepare() first.
    std::vector<Choice> distribution(std::size_t i, double t) const;
    // Counts |ρ(x, D)| for every node and distinct row; an error past kMaxCells.
    void prepare();
    static constexpr int64_t kMaxCells = 10'000'000;

    // Draws a level vector for one kept row of distinct row i with u in (0, 1];
    // nullptr when the row is released as all ⊥.
    static const Choice* draw(const std::vector<Choice>& d, double u);

    // The release's draws, after prepare(): θ ~ U(θ0, 1) gives the threshold
    // θ·|D|; then each kept row of the distinct rows gets a
    // generalization drawn from one stream of the run; the distinct rows are
    // taken in the order `before` gives them (by their values: a seed then
    // repeats a release whatever order the scan produced). on_choice(i, c) per kept row of
    // distinct row i (c nullptr: released as all ⊥); `between` after each
    // distinct row that had kept rows (the adapter checks for interrupts there).
    void release(const DpRandom& random, const std::function<bool(std::size_t, std::size_t)>& before,
                 const std::function<void(std::size_t, const Choice*)>& on_choice,
                 const std::function<void()>& between) const;

    std::size_t nodes() const { return nodes_; }
    double scale() const { return scale_; }

private:
    std::vector<int> node_levels(std::size_t node) const;

    std::vector<FouadDimension> dims_;
    FouadParameters p_;
    double phi_l_, phi_u_, scale_;
    std::size_t nodes_ = 1;
    std::vector<uint32_t> codes_;  // distinct rows, width per row
    std::vector<int64_t> counts_, kept_;
    int64_t total_ = 0;
    std::vector<uint32_t> rho_;  // [tuple × nodes + node]
    FlatIndex index_{std::pmr::new_delete_resource()};
};

}  // namespace privrisk
