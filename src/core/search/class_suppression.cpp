// The per-class constraints' verdict on each class (class_suppression.hpp).
#include "search/class_suppression.hpp"

#include "common/no_postgres.hpp"

namespace privrisk {

ContingencyTable class_table(const NodeClasses& classes, const std::vector<std::optional<std::string>>& sensitive,
                             const std::vector<char>* keep) {
    ContingencyTable t;
    for (const auto& v : sensitive) t.intern(v ? Value(*v) : Value());  // ids as the classes number them
    for (std::size_t c = 0; c < classes.classes(); ++c)
        if (!keep || (*keep)[c])
            t.add_class(classes.pairs.data() + classes.first[c], classes.first[c + 1] - classes.first[c]);
    t.canonicalize();
    return t;
}

ClassVerdicts violating_classes(const NodeClasses& cl, const std::vector<std::optional<std::string>>& sensitive,
                                const Constraints& q) {
    const std::size_t n = cl.classes();
    ClassVerdicts v;
    v.keep.assign(n, 1);
    for (std::size_t c = 0; c < n; ++c) {
        if (q.k && cl.sizes[c] < *q.k) v.keep[c] = 0;
        if (q.max_risk && strictly_below(*q.max_risk, 1.0 / double(cl.sizes[c]))) v.keep[c] = 0;
    }
    if (q.needs_histograms() && n > 0) {
        ContingencyTable all = class_table(cl, sensitive, nullptr);
        if (q.l) {
            if (q.l_kind == LDiversity::Distinct) l_distinct(all, &v.l);
            else if (q.l_kind == LDiversity::Entropy) l_entropy(all, &v.l);
            else l_recursive(all, q.l_c, &v.l);
            for (std::size_t c = 0; c < n; ++c)
                if (strictly_below(v.l[c], *q.l)) v.keep[c] = 0;
        }
        if (q.t) {
            if (q.t_kind == TCloseness::Equal) t_equal(all, &v.t);
            else if (q.t_kind == TCloseness::Ordered) t_ordered(all, &v.t);
            else t_hierarchical(all, *q.t_hierarchy, &v.t);
            for (std::size_t c = 0; c < n; ++c)
                if (strictly_below(*q.t, v.t[c])) v.keep[c] = 0;
        }
        if (q.delta) {
            delta_disclosure(all, &v.delta);
            for (std::size_t c = 0; c < n; ++c)
                if (!strictly_below(v.delta[c], *q.delta)) v.keep[c] = 0;
        }
    }
    for (std::size_t c = 0; c < n; ++c)
        if (!v.keep[c]) v.violating += cl.sizes[c];
    return v;
}

bool suppression_within(double max_suppression, int64_t rows, int64_t violating) {
    return !strictly_below(max_suppression * double(rows), double(violating));
}

}  // namespace privrisk
