// dp_release, mechanism fouad (docs/dp.md; Fouad's thesis, Algorithm 6).
#include "dp/dp_release.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace privrisk::pg::dp {

namespace {

// The most leaves under one node below the root of a tree hierarchy, from the
// catalog: public, so φ_l derived from it leaks nothing about the data (A7).
int64_t widest_node(const std::string& hierarchy) {
    Spi spi;
    spi.run(
        "SELECT h.kind, (SELECT pg_catalog.max(n) FROM (SELECT pg_catalog.count(*) AS n "
        "FROM privrisk.hierarchy_leaf l, pg_catalog.generate_subscripts(l.path, 1) AS i "
        "WHERE l.hierarchy OPERATOR(pg_catalog.=) h.name GROUP BY i, l.path[i]) AS c)::pg_catalog.int8 "
        "FROM privrisk.hierarchy h WHERE h.name OPERATOR(pg_catalog.=) $1",
        {text_arg(hierarchy)}, true);
    if (spi.string(0, 1) != "tree")
        fail(ErrorKind::InvalidParameter, "sensitivity harmonic needs tree hierarchies (leaf counts); " +
                                              quote_value(hierarchy) + " is of kind " + spi.string(0, 1));
    const int64_t widest = spi.int8(0, 2);
    spi.finish();
    return widest;
}

// The bounds of the weights Φ from the schema alone (A7): uniform is Model II
// (Φ ≡ 1); harmonic is w_leaf/n(x), ⊥ weighing 0 (leaf weights checked here).
std::pair<double, double> weight_bounds(Request& req) {
    const std::size_t width = req.columns.size();
    double phi_l = 1, phi_u = 1;
    if (req.sensitivity == Sensitivity::Harmonic) {
        if (req.leaf_weights.empty()) req.leaf_weights.assign(width, 1.0 / width);
        if (req.leaf_weights.size() != width)
            fail(ErrorKind::InvalidParameter, "leaf_weights must have one entry per quasi-identifier (" +
                                                  std::to_string(width) + "), got " +
                                                  std::to_string(req.leaf_weights.size()));
        phi_l = INFINITY;
        phi_u = 0;
        for (std::size_t j = 0; j < width; ++j) {
            const double w = req.leaf_weights[j];
            if (!(w > 0) || !std::isfinite(w))
                fail(ErrorKind::InvalidParameter, "leaf weight " + number_text(w) + " of " +
                                                      quote_value(req.columns[j].name) +
                                                      " must be positive and finite");
            phi_u += w;
            const int64_t widest = req.columns[j].hierarchy_name ? widest_node(*req.columns[j].hierarchy_name) : 1;
            phi_l = std::min(phi_l, w / double(widest));
        }
    } else if (!req.leaf_weights.empty()) {
        fail(ErrorKind::InvalidParameter, "leaf_weights apply to sensitivity harmonic");
    }
    return {phi_l, phi_u};
}

}  // namespace

// Fouad: keep with 1 − β, choose a t-frequent generalization per kept record.
DpOutput* release_fouad(Request& req, MemoryContext memory) {
    const FouadParameters& fp = req.fouad;
    check_fouad_parameters(fp);
    if (!(req.delta > 0 && req.delta < 1))
        fail(ErrorKind::InvalidParameter, "delta must be in (0, 1), got " + number_text(req.delta));
    const std::size_t width = req.columns.size();
    const auto [phi_l, phi_u] = weight_bounds(req);
    const double scale = fouad_scale(fp, phi_l, phi_u);
    SourceRelation source = source_relation(req.relid);
    std::string mechanism_fields =
        "\"drop_probability\": " + json_number(fp.drop) + ", \"theta0\": " + json_number(fp.theta0) +
        ", \"lambda\": " + json_number(fp.lambda) + ", \"kappa\": " + std::to_string(fp.kappa) +
        ", \"score\": " + json_string(fp.score == FouadScore::Aggregate ? "aggregate" : "risk") +
        ", \"sensitivity\": " + json_string(req.sensitivity == Sensitivity::Uniform ? "uniform" : "harmonic");
    auto columns = open_source(
        req, source,
        Spend{req.epsilon, req.delta, "fouad", parameters_json(req, mechanism_fields), req.seed.has_value()});
    DpRandom random = run_random(req.seed);
    const uint64_t keep = DpRandom::inclusion_threshold(1 - fp.drop);
    // Codes are assigned during the scan and the mechanism needs the dimensions
    // first, so the scan counts rows (and kept rows) per distinct tuple.
    std::vector<FouadDimension> dims(width);
    FlatIndex tuples{std::pmr::new_delete_resource()};
    std::vector<uint32_t> tuple_codes;
    std::vector<int64_t> tuple_rows;
    int64_t rows = count_source(
        req, source, columns, choose_read(req.relid, columns, columns.size(), {true, true, false, false}),
        std::vector<int>(width, 0),
        [&](const uint32_t* codes, int64_t n) {
            uint32_t t =
                tuples.find_or_add(std::string_view(reinterpret_cast<const char*>(codes), width * sizeof(uint32_t)));
            if (t == tuple_rows.size()) {
                tuple_rows.push_back(0);
                tuple_codes.insert(tuple_codes.end(), codes, codes + width);
            }
            tuple_rows[t] += n;
        },
        [&](std::size_t j, uint32_t code) {
            const auto& v = req.columns[j].values.text[code];
            if (v) req.columns[j].check_value(*v, 0);  // generalizations start from leaves
        });
    // Each distinct row's kept records: a function of its values and count alone.
    std::vector<int64_t> tuple_kept(tuple_rows.size());
    std::vector<std::optional<std::string_view>> values(width);
    for (std::size_t t = 0; t < tuple_rows.size(); ++t) {
        for (std::size_t j = 0; j < width; ++j) {
            const auto& v = req.columns[j].values.text[tuple_codes[t * width + j]];
            values[j] = v ? std::optional<std::string_view>(*v) : std::nullopt;
        }
        tuple_kept[t] = sampled_rows(random, values, tuple_rows[t], keep);
        if ((t & 4095) == 4095) pg_call([] { CHECK_FOR_INTERRUPTS(); });
    }
    // Each column's values generalized per level: ids per level, texts per released id.
    std::vector<TextIds> released(width);
    std::vector<std::vector<std::vector<uint32_t>>> released_at(width);  // [column][level][code] -> released id
    int max_chain = 1;
    std::string scratch;
    for (std::size_t j = 0; j < width; ++j) {
        const DpColumn& c = req.columns[j];
        FouadDimension& d = dims[j];
        d.height = c.height();
        max_chain = std::max(max_chain, d.height + 1);
        const std::size_t n = c.values.text.size();
        d.ancestor.assign(d.height + 1, std::vector<uint32_t>(n));
        d.weight.assign(d.height + 1, std::vector<double>(n));
        released_at[j].assign(d.height + 1, std::vector<uint32_t>(n));
        d.suppressed.resize(n);
        for (int level = 0; level <= d.height; ++level) {
            for (uint32_t code = 0; code < n; ++code) {
                const auto& v = c.values.text[code];
                d.suppressed[code] = !v;
                Value g = !v ? Value() : c.hierarchy ? c.hierarchy->generalize(*v, level, scratch) : Value(*v);
                uint32_t id = released[j].id(g);
                released_at[j][level][code] = id;
                d.ancestor[level][code] = id;                  // ids are unique across levels: labels identify nodes
                double w = 1.0 / width;                        // uniform: Model II
                if (req.sensitivity == Sensitivity::Harmonic)  // a column without hierarchy has height 0: ⊥ only
                    w = !g || level == d.height ? 0 : harmonic_weight(*c.hierarchy, g, req.leaf_weights[j]);
                d.weight[level][code] = w;
            }
        }
    }
    check_fouad_delta(fp, req.delta, rows, max_chain, static_cast<int>(width), fouad_tilt(fp, scale, phi_u));
    FouadMechanism m(std::move(dims), fp, phi_l, phi_u);
    for (std::size_t t = 0; t < tuple_rows.size(); ++t) m.add(&tuple_codes[t * width], tuple_rows[t], tuple_kept[t]);
    m.prepare();
    auto value_of = [&](std::size_t t, std::size_t j) -> const std::optional<std::string>& {
        return req.columns[j].values.text[m.tuple(t)[j]];
    };
    SampleClasses classes(width);
    std::vector<uint32_t> ids(width);
    m.release(
        random,
        [&](std::size_t a, std::size_t b) {  // by the rows' values, not the scan's order
            for (std::size_t j = 0; j < width; ++j)
                if (value_of(a, j) != value_of(b, j)) return value_of(a, j) < value_of(b, j);
            return false;
        },
        [&](std::size_t t, const FouadMechanism::Choice* c) {
            for (std::size_t j = 0; j < width; ++j)
                ids[j] = c ? released_at[j][c->levels[j]][m.tuple(t)[j]] : released[j].id(std::nullopt);
            classes.add(ids.data());
        },
        [] { pg_call([] { CHECK_FOR_INTERRUPTS(); }); });
    std::vector<const std::vector<std::optional<std::string>>*> texts;
    for (auto& r : released) texts.push_back(&r.text);
    SampleClasses::Released out = classes.finish(1, random, by_values(classes, texts));
    return output_classes(classes, out, texts, memory);
}

}  // namespace privrisk::pg::dp
