// Information-theoretic privacy and utility (Askari, Safavi-Naini, Barker,
// CODASPY 2012; [ASB12]): entropies of a table's columns, channel metrics of
// a sanitization mechanism seen as a noisy channel, the k-anonymity channel of
// a tiny universe, and the Askari utility of a table. Channel quantities are
// in bits (the Santhi-Vardy bound needs base 2); the column entropies of the
// SQL aggregates in nats or bits as their names say.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace privrisk {

// H of the distribution given by counts (zeros ignored), in nats: ln n − (1/n) Σ c ln c,
// with Σ c ln c summed exactly, so the counts' order does not change a bit.
double entropy_nats(const std::vector<int64_t>& counts);
constexpr double kNatsPerBit = 0.69314718055994530942;  // ln 2

// ---- channels ---------------------------------------------------------------

// P(T'|T): rows are inputs, columns outputs; every row a probability vector
// (entries ≥ 0, sum within 1e-9 of 1). A prior sums to 1 within 1e-9.
class Channel {
public:
    static Channel from_rows(const std::vector<std::vector<double>>& rows);
    std::size_t inputs() const { return inputs_; }
    std::size_t outputs() const { return outputs_; }
    double at(std::size_t input, std::size_t output) const { return p_[input * outputs_ + output]; }
    // The prior as given, checked against the channel; empty: uniform.
    std::vector<double> prior(const std::vector<double>& given) const;

private:
    std::size_t inputs_ = 0, outputs_ = 0;
    std::vector<double> p_;
};

constexpr double kStochasticTolerance = 1e-9;

struct ChannelMetrics {
    double bayes_error;                             // eq 5: 1 − Σ_T' max_T P(T'|T) P(T)
    double input_entropy;                           // H(T)
    double output_entropy;                          // H(T')
    double conditional_entropy;                     // H(T|T') (eq 7, sign fixed)
    double mutual_information;                      // I(T;T') = H(T) − H(T|T')
    double error_bound;                             // Santhi-Vardy: 1 − 2^(−H(T|T')) ≥ bayes_error
    std::vector<std::optional<std::size_t>> guess;  // MAP input per output (none: unreachable)
};
ChannelMetrics channel_metrics(const Channel& channel, const std::vector<double>& prior);

// The four adversaries of §4.1.1: knowing the prior or not (uniform), the mechanism or not.
struct AdversaryErrors {
    double neither;         // 1 − 1/n
    double prior_only;      // 1 − max π
    double mechanism_only;  // eq 3
    double both;            // eq 5
};
AdversaryErrors adversary_errors(const Channel& channel, const std::vector<double>& prior);

// The prior that maximizes the MAP adversary's error (decision A11): a vertex of
// the arrangement of ties π_i P_ij = π_k P_kj and faces π_i = 0; only for small
// channels (the candidate vertices are counted first; past kMaxPriorVertices, an error).
struct WorstPrior {
    double bayes_error;
    std::vector<double> prior;
};
WorstPrior worst_case_prior(const Channel& channel);
constexpr uint64_t kMaxPriorVertices = 5'000'000;

// ---- the k-anonymity channel of a tiny universe (§5; decisions A4-A6, corrected) ----

// One attribute of the universe: levels[l][v] is the id of ground value v at
// level l (levels[0] the identity). Quasi-identifiers may be generalized; the
// others stay at level 0.
struct UniverseAttribute {
    std::string name;
    std::vector<std::vector<uint32_t>> levels;
    bool quasi_identifier = true;
};

enum class KAnonymityMechanism {
    Uniform,  // the paper's §5.5: uniformly among the k-anonymous full-domain generalizations of T
    Minimal   // deterministic: the feasible node with the least Σ levels, then the smallest levels in order
};

struct UniverseChannel {
    uint64_t inputs = 0;   // tables of `rows` rows (multisets), eq 21
    uint64_t outputs = 0;  // reachable released tables (the level vector is part of one)
    double sum_of_column_maxima = 0;
    double bayes_error = 0;          // uniform prior over the inputs
    double conditional_entropy = 0;  // bits
    double error_bound = 0;
    double utility_degradation = 0;  // eq 16: E[Utility_T − Utility_T'], H_max at the published level, P(A) = 1/p, bits
    std::map<int, uint64_t> feasible_nodes;  // x(T) -> inputs with that many k-anonymous nodes
};
UniverseChannel k_anonymity_channel(const std::vector<UniverseAttribute>& attributes, int rows, int k,
                                    KAnonymityMechanism mechanism);
constexpr uint64_t kMaxUniverseInputs = 2'000'000;

// ---- utility of a table (eq 8-14) ---------------------------------------------

struct AttributeUtility {
    double h_max;        // log2 of the attribute's domain size at its published level
    double entropy;      // H(A)
    double conditional;  // H(A | the other attributes)
    double u1;           // eq 8: H_max − H(A)
    double u_max;        // eq 13: H_max − H(A | rest)
};
struct TableUtility {
    double utility;  // eq 14: Σ_i P(A_i) U_max(A_i), bits
    std::vector<AttributeUtility> attributes;
};
// rows: one code per attribute each (codes compared only for equality);
// domain[i] ≥ 1; weights empty (uniform 1/p) or one per attribute summing to 1.
TableUtility table_utility(const std::vector<std::vector<uint32_t>>& rows, const std::vector<double>& domain,
                           const std::vector<double>& weights);

}  // namespace privrisk
