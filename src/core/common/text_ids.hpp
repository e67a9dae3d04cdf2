// One id per distinct text of a column, NULL (⊥) an id of its own, and the
// texts by id, in the order they were first met: a column's values coded by
// what they print as (two values with other bytes but one text are one).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/flat_index.hpp"

namespace privrisk {

struct TextIds {
    FlatIndex index{std::pmr::new_delete_resource()};
    std::vector<uint32_t> id_of_index;
    std::vector<std::optional<std::string>> text;
    uint32_t null_id = UINT32_MAX;

    uint32_t id(std::optional<std::string_view> value) {
        if (!value) {
            if (null_id == UINT32_MAX) {
                null_id = static_cast<uint32_t>(text.size());
                text.emplace_back(std::nullopt);
            }
            return null_id;
        }
        bool added;
        uint32_t i = index.find_or_add(*value, &added);
        if (added) {
            id_of_index.push_back(static_cast<uint32_t>(text.size()));
            text.emplace_back(std::string(*value));
        }
        return id_of_index[i];
    }
};

}  // namespace privrisk
