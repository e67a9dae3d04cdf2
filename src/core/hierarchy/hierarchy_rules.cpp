// Hierarchies computed from a rule rather than listed: numeric intervals,
// prefix masking and ISO dates (the builders of docs/hierarchy.md).
#include <charconv>
#include <cmath>
#include <cstdio>

#include "common/error.hpp"
#include "hierarchy/hierarchy.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {
namespace {

bool parse_number(std::string_view s, double& out) {
    if (s.empty()) return false;
    const char* b = s.data();
    if (*b == '+') ++b;
    auto res = std::from_chars(b, s.data() + s.size(), out);
    return res.ec == std::errc() && res.ptr == s.data() + s.size() && std::isfinite(out);
}

class IntervalHierarchy final : public Hierarchy {
public:
    IntervalHierarchy(std::string name, double lo, double hi, std::vector<long> widths)
        : Hierarchy(std::move(name), static_cast<int>(widths.size()) + 1),
          lo_(lo),
          hi_(hi),
          widths_(std::move(widths)) {}

protected:
    Node locate(std::string_view node) const override {
        double v;
        if (parse_number(node, v)) {
            check_range(node, v);
            return Node{0, -1};
        }
        // An interval label "[a, b)" names the level whose width is b - a.
        double a, b;
        if (node.size() > 4 && node.front() == '[' && node.back() == ')') {
            auto comma = node.find(", ");
            if (comma != std::string_view::npos && parse_number(node.substr(1, comma - 1), a) &&
                parse_number(node.substr(comma + 2, node.size() - comma - 3), b)) {
                for (std::size_t i = 0; i < widths_.size(); ++i) {
                    if (b - a != static_cast<double>(widths_[i]) || a < lo_ || a > hi_) continue;
                    std::string scratch;
                    if (label(a, static_cast<int>(i) + 1, scratch) == node) return Node{static_cast<int>(i) + 1, -1};
                }
            }
        }
        not_in_hierarchy(node, "expected a number in [" + number_text(lo_) + ", " + number_text(hi_) +
                                   "] or one of its interval labels such as " + example());
    }

    std::string_view ancestor(std::string_view node, Node where, int level, std::string& scratch) const override {
        double v;
        if (where.level == 0) {
            parse_number(node, v);
        } else {
            parse_number(node.substr(1, node.find(", ") - 1), v);  // an interval's lower bound
        }
        return label(v, level, scratch);
    }

    double leaves_under(std::string_view node, Node where) const override {
        if (where.level == 0) return 1;
        double a, b;
        auto comma = node.find(", ");
        parse_number(node.substr(1, comma - 1), a);
        parse_number(node.substr(comma + 2, node.size() - comma - 3), b);
        // integers in [a, b) ∩ [lo, hi]
        double first = std::ceil(std::max(a, lo_)), last = std::min(std::ceil(b) - 1, std::floor(hi_));
        return std::max(1.0, last - first + 1);
    }

private:
    void check_range(std::string_view node, double v) const {
        if (v < lo_ || v > hi_)
            fail(ErrorKind::InvalidParameter, "value " + quote_value(node) + " is outside the range [" +
                                                  number_text(lo_) + ", " + number_text(hi_) +
                                                  "] of interval hierarchy " + quote_value(name()));
    }

    std::string_view label(double v, int level, std::string& scratch) const {
        double w = static_cast<double>(widths_[level - 1]);
        double start = lo_ + std::floor((v - lo_) / w) * w;
        scratch = "[" + number_text(start) + ", " + number_text(start + w) + ")";
        return scratch;
    }

    std::string example() const {
        std::string scratch;
        return quote_value(label(lo_, 1, scratch));
    }

    double lo_, hi_;
    std::vector<long> widths_;
};

// Number of UTF-8 code points, and the byte offset where the last `k` begin.
std::size_t code_points(std::string_view s) {
    std::size_t n = 0;
    for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}

class PrefixHierarchy final : public Hierarchy {
public:
    PrefixHierarchy(std::string name, int max_len) : Hierarchy(std::move(name), max_len) {}

protected:
    Node locate(std::string_view node) const override {
        std::size_t chars = code_points(node);
        if (chars == 0) not_in_hierarchy(node, "the empty string has no prefix");
        if (chars > static_cast<std::size_t>(height()))
            not_in_hierarchy(node, "it has " + std::to_string(chars) + " characters, more than the hierarchy's " +
                                       std::to_string(height()));
        std::size_t stars = 0;
        while (stars < node.size() && node[node.size() - 1 - stars] == '*') ++stars;
        return Node{static_cast<int>(std::min<std::size_t>(stars, height())), -1};
    }

    std::string_view ancestor(std::string_view node, Node, int level, std::string& scratch) const override {
        // Keep all but the last `level` code points, then pad with '*' to the same length.
        std::size_t chars = code_points(node);
        std::size_t keep = chars > static_cast<std::size_t>(level) ? chars - level : 0;
        std::size_t byte = 0, seen = 0;
        while (byte < node.size() && seen < keep) {
            ++byte;
            while (byte < node.size() && (static_cast<unsigned char>(node[byte]) & 0xC0) == 0x80) ++byte;
            ++seen;
        }
        scratch.assign(node.substr(0, byte));
        scratch.append(chars - keep, '*');
        return scratch;
    }

    double leaves_under(std::string_view, Node where) const override { return std::pow(10.0, where.level); }
};

class DateHierarchy final : public Hierarchy {
public:
    explicit DateHierarchy(std::string name) : Hierarchy(std::move(name), 3) {}

protected:
    Node locate(std::string_view node) const override {
        auto digits = [&](std::size_t from, std::size_t n) {
            for (std::size_t i = from; i < from + n; ++i)
                if (node[i] < '0' || node[i] > '9') return -1;
            int v = 0;
            for (std::size_t i = from; i < from + n; ++i) v = v * 10 + (node[i] - '0');
            return v;
        };
        int year = node.size() >= 4 ? digits(0, 4) : -1;
        if (node.size() == 4 && year >= 1) return Node{2, -1};
        if (node.size() == 7 && year >= 1 && node[4] == '-') {
            int month = digits(5, 2);
            if (month >= 1 && month <= 12) return Node{1, -1};
        }
        if (node.size() == 10 && year >= 1 && node[4] == '-' && node[7] == '-') {
            int month = digits(5, 2), day = digits(8, 2);
            static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
            bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
            if (month >= 1 && month <= 12 && day >= 1 && day <= days[month - 1] + (month == 2 && leap))
                return Node{0, -1};
        }
        not_in_hierarchy(node, "expected an ISO date YYYY-MM-DD, a month YYYY-MM or a year YYYY");
    }

    std::string_view ancestor(std::string_view node, Node, int level, std::string&) const override {
        return node.substr(0, level == 1 ? 7 : 4);
    }

    double leaves_under(std::string_view node, Node where) const override {
        if (where.level == 0) return 1;
        int year = 0;
        for (int i = 0; i < 4; ++i) year = year * 10 + (node[i] - '0');
        const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        if (where.level == 2) return leap ? 366 : 365;
        static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        const int month = (node[5] - '0') * 10 + (node[6] - '0');
        return days[month - 1] + (month == 2 && leap);
    }
};

}  // namespace

std::unique_ptr<Hierarchy> make_interval_hierarchy(const std::string& name, double lo, double hi,
                                                   const std::vector<long>& widths) {
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
        fail(ErrorKind::InvalidParameter, "interval hierarchy " + quote_value(name) +
                                              " needs finite bounds with lo < hi, got [" + number_text(lo) + ", " +
                                              number_text(hi) + "]");
    if (widths.empty())
        fail(ErrorKind::InvalidParameter, "interval hierarchy " + quote_value(name) + " needs at least one width");
    if (widths.size() + 1 > static_cast<std::size_t>(kMaxHeight))
        fail(ErrorKind::InvalidParameter, "interval hierarchy " + quote_value(name) + " may have at most " +
                                              std::to_string(kMaxHeight - 1) + " widths");
    for (std::size_t i = 0; i < widths.size(); ++i) {
        if (widths[i] <= 0)
            fail(ErrorKind::InvalidParameter, "width " + std::to_string(i + 1) + " of interval hierarchy " +
                                                  quote_value(name) + " is " + std::to_string(widths[i]) +
                                                  "; widths must be positive");
        if (i > 0 && (widths[i] <= widths[i - 1] || widths[i] % widths[i - 1] != 0))
            fail(ErrorKind::InvalidParameter, "widths of interval hierarchy " + quote_value(name) +
                                                  " must nest: " + std::to_string(widths[i]) +
                                                  " is not a larger multiple of " + std::to_string(widths[i - 1]));
    }
    // Labels are computed in doubles: every bound they show must be an integer
    // or fraction a double holds exactly apart from its neighbours, i.e. within
    // ±2^53; past it "[a, a + w)" can print as "[a, a)" or repeat a label.
    constexpr double kMaxExact = 9007199254740992.0;  // 2^53
    if (std::fabs(lo) > kMaxExact || std::fabs(hi) > kMaxExact)
        fail(ErrorKind::InvalidParameter, "interval hierarchy " + quote_value(name) +
                                              " needs bounds between -2^53 and 2^53 (" + number_text(-kMaxExact) +
                                              " .. " + number_text(kMaxExact) + "), got [" + number_text(lo) + ", " +
                                              number_text(hi) + "]");
    for (std::size_t i = 0; i < widths.size(); ++i) {
        double w = static_cast<double>(widths[i]);
        double last = lo + std::floor((hi - lo) / w) * w;  // start of the interval holding hi
        if (!(last + w > last) || last + w > kMaxExact)
            fail(ErrorKind::InvalidParameter,
                 "interval hierarchy " + quote_value(name) + ": the width-" + std::to_string(widths[i]) +
                     " interval holding hi = " + number_text(hi) + " would end beyond 2^53 (" + number_text(kMaxExact) +
                     "), where its label would not be exact; lower hi or the width");
    }
    return std::make_unique<IntervalHierarchy>(name, lo, hi, widths);
}

std::unique_ptr<Hierarchy> make_prefix_hierarchy(const std::string& name, int max_len) {
    if (max_len < 1 || max_len > kMaxPrefixLength)
        fail(ErrorKind::InvalidParameter, "prefix hierarchy " + quote_value(name) + " needs max_len between 1 and " +
                                              std::to_string(kMaxPrefixLength) + ", got " + std::to_string(max_len));
    return std::make_unique<PrefixHierarchy>(name, max_len);
}

std::unique_ptr<Hierarchy> make_date_hierarchy(const std::string& name) {
    return std::make_unique<DateHierarchy>(name);
}

}  // namespace privrisk
