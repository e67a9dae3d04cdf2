#include "dp/fouad_mechanism.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

void check_fouad_parameters(const FouadParameters& p) {
    if (!(p.epsilon > 0) || !std::isfinite(p.epsilon))
        fail(ErrorKind::InvalidParameter, "epsilon must be positive and finite, got " + number_text(p.epsilon));
    const double floor = std::exp(-p.epsilon);
    if (!(p.drop > floor && p.drop < 1))
        fail(ErrorKind::InvalidParameter,
             "fouad needs a drop probability in (e^-epsilon, 1) = (" + number_text(floor) + ", 1), got " +
                 number_text(p.drop) + " (at e^-epsilon the mechanism's scale is 0; records are kept with 1 - drop)");
    if (!(p.theta0 > 0 && p.theta0 < 1))
        fail(ErrorKind::InvalidParameter, "theta0 must be in (0, 1), got " + number_text(p.theta0));
    if (!(p.lambda >= 0) || !std::isfinite(p.lambda))
        fail(ErrorKind::InvalidParameter, "lambda must be non-negative and finite, got " + number_text(p.lambda));
    if (p.kappa < 0 || p.kappa > 16)
        fail(ErrorKind::InvalidParameter, "kappa must be in 0..16, got " + std::to_string(p.kappa));
}

double fouad_scale(const FouadParameters& p, double phi_l, double phi_u) {
    check_fouad_parameters(p);
    if (!(phi_l > 0) || !(phi_u >= phi_l) || !std::isfinite(phi_u))
        fail(ErrorKind::InvalidParameter, "the sensitivity bounds must satisfy 0 < phi_l <= phi_u, got " +
                                              number_text(phi_l) + ", " + number_text(phi_u));
    const double eta = p.score == FouadScore::Aggregate ? 2 * (p.lambda / phi_l + 1) : phi_u;
    return (p.epsilon + std::log(p.drop)) / (3 * eta * (1 - p.drop));
}

double fouad_tilt(const FouadParameters& p, double scale, double phi_u) {
    return p.score == FouadScore::Aggregate ? (p.epsilon + std::log(p.drop)) / (6 * (1 - p.drop)) : scale * phi_u;
}

void check_fouad_delta(const FouadParameters& p, double delta, int64_t rows, int max_chain, int dimensions,
                       double tilt) {
    if (!(delta > 0 && delta < 1))
        fail(ErrorKind::InvalidParameter, "delta must be in (0, 1), got " + number_text(delta));
    const double m = double(rows), beta = p.drop;
    const double min_rows = std::log(2 / delta) / (0.1081977 * (1 - beta));
    if (m < min_rows)
        fail(ErrorKind::InvalidParameter, "fouad's delta bound needs at least " +
                                              std::to_string(int64_t(std::ceil(min_rows))) +
                                              " rows at drop probability " + number_text(beta) + " and delta " +
                                              number_text(delta) + "; the source has " + std::to_string(rows));
    const double log_lattice = dimensions * std::log(double(max_chain));  // ln h^k
    const double t_prime = beta * beta * std::exp(log_lattice + tilt) / (1 - beta);
    const double t = p.theta0 * m;
    const double tau1 = std::sqrt(2 * (std::log(2 / delta) + log_lattice) / (beta * t));
    if (!(tau1 < 1) || (1 - tau1) * beta * t < t_prime)
        fail(ErrorKind::InvalidParameter,
             "fouad's delta bound does not hold: the smallest threshold t = theta0 x rows = " + number_text(t) +
                 " leaves (1 - tau1) x drop x t = " + number_text(std::max(0.0, (1 - tau1) * beta * t)) +
                 " unsampled records per generalization, below t' = " + number_text(t_prime) +
                 " (raise theta0, the rows, or delta, or coarsen the hierarchies)");
}

FouadMechanism::FouadMechanism(std::vector<FouadDimension> dims, const FouadParameters& p, double phi_l, double phi_u)
    : dims_(std::move(dims)), p_(p), phi_l_(phi_l), phi_u_(phi_u), scale_(fouad_scale(p, phi_l, phi_u)) {
    for (const auto& d : dims_) {
        nodes_ *= std::size_t(d.height + 1);
        if (nodes_ > std::size_t(kMaxCells))
            fail(ErrorKind::ProgramLimit,
                 "fouad enumerates every generalization: more than " + std::to_string(kMaxCells) + " nodes");
    }
}

std::vector<int> FouadMechanism::node_levels(std::size_t node) const {
    std::vector<int> levels(dims_.size());
    for (std::size_t j = dims_.size(); j-- > 0;) {  // the first dimension is the most significant digit
        levels[j] = static_cast<int>(node % (dims_[j].height + 1));
        node /= (dims_[j].height + 1);
    }
    return levels;
}

void FouadMechanism::prepare() {
    const std::size_t width = dims_.size(), tuples = counts_.size();
    if (double(tuples) * double(nodes_) > double(kMaxCells))
        fail(ErrorKind::ProgramLimit,
             "fouad counts |rho| for every generalization of every distinct row: " + std::to_string(tuples) +
                 " distinct rows x " + std::to_string(nodes_) + " nodes exceeds " + std::to_string(kMaxCells) +
                 " (coarsen or drop a column)");
    if (total_ > int64_t(UINT32_MAX)) fail(ErrorKind::ProgramLimit, "fouad reads at most 4294967295 rows");
    rho_.assign(tuples * nodes_, 0);
    std::vector<uint32_t> key(width);
    std::vector<uint32_t> id(tuples);
    for (std::size_t node = 0; node < nodes_; ++node) {
        std::vector<int> levels = node_levels(node);
        FlatIndex classes{std::pmr::new_delete_resource()};
        std::vector<int64_t> sizes;
        for (std::size_t i = 0; i < tuples; ++i) {
            const uint32_t* codes = tuple(i);
            for (std::size_t j = 0; j < width; ++j) key[j] = dims_[j].ancestor[levels[j]][codes[j]];
            id[i] = classes.find_or_add(
                std::string_view(reinterpret_cast<const char*>(key.data()), width * sizeof(uint32_t)));
            if (id[i] == sizes.size()) sizes.push_back(0);
            sizes[id[i]] += counts_[i];
        }
        for (std::size_t i = 0; i < tuples; ++i) rho_[i * nodes_ + node] = static_cast<uint32_t>(sizes[id[i]]);
    }
}

std::vector<FouadMechanism::Choice> FouadMechanism::distribution(std::size_t i, double t) const {
    if (rho_.size() != counts_.size() * nodes_) fail(ErrorKind::Internal, "FouadMechanism::prepare() was not called");
    const std::size_t width = dims_.size();
    const uint32_t* codes = tuple(i);
    const double m = double(total_);
    std::vector<Choice> out;
    for (std::size_t node = 0; node < nodes_; ++node) {
        const int64_t rho = rho_[i * nodes_ + node];
        if (double(rho) < t) continue;  // not t-frequent
        std::vector<int> levels = node_levels(node);
        bool valid = true;
        double phi = 0, utility = 0;
        for (std::size_t j = 0; j < width && valid; ++j) {
            const FouadDimension& d = dims_[j];
            if (d.suppressed[codes[j]] && levels[j] != d.height) valid = false;  // ⊥ has one generalization: itself
            phi += d.weight[levels[j]][codes[j]];
            utility += d.height - levels[j];
        }
        if (!valid) continue;
        double score;
        if (p_.score == FouadScore::Aggregate) {
            if (!(phi > 0)) continue;  // f = λ/0 (A5)
            score = scale_ * (p_.lambda * double(rho) / phi + std::pow(utility, p_.kappa)) / m;
        } else {
            score = -scale_ * (phi / double(rho)) / m;
        }
        out.push_back(Choice{std::move(levels), 0, rho, phi, utility, score});
    }
    if (out.empty()) return out;
    double top = out[0].score;
    for (const auto& c : out) top = std::max(top, c.score);
    double sum = 0;
    for (auto& c : out) sum += (c.probability = std::exp(c.score - top));
    for (auto& c : out) c.probability /= sum;
    return out;
}

const FouadMechanism::Choice* FouadMechanism::draw(const std::vector<Choice>& d, double u) {
    if (d.empty()) return nullptr;
    double cumulative = 0;
    for (const auto& c : d) {
        cumulative += c.probability;
        if (u <= cumulative) return &c;
    }
    return &d.back();  // u within rounding of 1
}

void FouadMechanism::release(const DpRandom& random, const std::function<bool(std::size_t, std::size_t)>& before,
                             const std::function<void(std::size_t, const Choice*)>& on_choice,
                             const std::function<void()>& between) const {
    const double theta = p_.theta0 + (1 - p_.theta0) * DpRandom::unit(random.run_words(DpStream::Threshold, 1)[0]);
    const double threshold = theta * double(total_);
    int64_t kept_rows = 0;
    for (std::size_t t = 0; t < tuples(); ++t) kept_rows += kept(t);
    std::vector<uint64_t> words = random.run_words(DpStream::Choice, static_cast<std::size_t>(kept_rows));
    std::size_t next_word = 0;
    std::vector<std::size_t> order(tuples());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), before);
    for (std::size_t t : order) {
        if (kept(t) == 0) continue;
        std::vector<Choice> d = distribution(t, threshold);
        for (int64_t r = 0; r < kept(t); ++r) on_choice(t, draw(d, DpRandom::unit(words[next_word++])));
        between();
    }
}

}  // namespace privrisk
