// Execution of a release scan: begin (the policy read, conditions bound, the
// state built), the per-row path, rescans and parallel workers. Quals on the
// release are evaluated by ExecScan on the released row, so a WHERE on a hidden
// column sees only what is released.
//
// Per-row code (release_next and below) holds no C++ object with a destructor:
// the PostgreSQL calls in it may raise an ERROR and jump over its frames. What
// can throw (filling the generalization cache) runs behind guarded().
#include <algorithm>

#include "common/memory_limit.hpp"
#include "release/pseudonym_key.hpp"
#include "release/scan_index.hpp"
#include "release/shard_pins.hpp"
#include "release/scan_suppression.hpp"
#include "release/value_cache.hpp"
#include "release/view_grants.hpp"
#include "release/watch_gate.hpp"

namespace privrisk::pg {
namespace {

// Every condition a read column's rule uses, once per row, on the original row.
void evaluate_conditions(ReleaseScanState* s, ExprContext* econtext) {
    const Datum* values = s->row_slot->tts_values;
    const bool* isnull = s->row_slot->tts_isnull;
    // Locals: the tests are calls through pointers, after which the state's fields would be read again.
    const int native_count = s->native_count;
    const int* native = s->native;
    FastCondition* const* fast = s->fast_conditions;
    bool* holds = s->condition_value;
    for (int k = 0; k < native_count; ++k) holds[native[k]] = fast_condition_holds(fast[native[k]], values, isnull);
    for (int k = 0; k < s->generic_count; ++k) {
        int i = s->generic[k];
        bool null;
        Datum d = ExecEvalExpr(s->conditions[i], econtext, &null);
        s->condition_value[i] = !null && DatumGetBool(d);  // unknown protects
    }
}

// The columns some rule touches or that are generalized, in `values`/`isnull`
// (which may be the source row's own arrays: each column reads its source value
// before writing its own entry, and the conditions ran before any). Branches on
// the row's data are kept to the one that chooses between a cache lookup and
// the value as is (the rest select): conditions hold on unpredictable rows, and
// a mispredicted jump costs more than a select.
void release_outputs(ReleaseScanState* s, ReleasedOutput* const* ruled, int ruled_count, Datum* values, bool* isnull) {
    const Datum* source_values = s->row_slot->tts_values;
    const bool* source_null = s->row_slot->tts_isnull;
    const bool* holds = s->condition_value;
    for (int k = 0; k < ruled_count; ++k) {
        ReleasedOutput* out = ruled[k];
        int c = out->output;
        Datum value = source_values[out->attno - 1];
        bool null = source_null[out->attno - 1];
        int level = released_level(
            out->rule_count, [&](int r) { return out->rule_raised[r]; },
            [&](int r) { return holds[out->rule_condition[r]]; });
        null |= level >= out->height;                    // ⊥
        values[c] = value & -static_cast<Datum>(!null);  // a hidden value is not left behind its NULL
        isnull[c] = null;
        // Generalized: released as text, from the cache; a text value at level 0 needs no lookup.
        if (out->generalized && !null && !(out->value_text.kind == ValueText::Text && level == 0)) {
            values[c] = generalized_text(s, out, value, level);
            isnull[c] = !values[c];  // ⊥ below the top cannot come from a valid hierarchy; never a NULL pointer
        }
    }
}

}  // namespace

// The released values of `outputs` for the current row, whose conditions were evaluated.
void release_values(ReleaseScanState* s, ReleasedOutput* const* outputs, int count, Datum* values, bool* isnull) {
    release_outputs(s, outputs, count, values, isnull);
}

void evaluate_row_conditions(ReleaseScanState* s, ExprContext* econtext) { evaluate_conditions(s, econtext); }

namespace {

void release_row(ReleaseScanState* s, ExprContext* econtext, Datum* values, bool* isnull, bool conditions_done) {
    if (!conditions_done) evaluate_conditions(s, econtext);
    release_outputs(s, s->ruled, s->ruled_count, values, isnull);
}

void start_serial_scan(ReleaseScanState* s) {
    EState* estate = s->css.ss.ps.state;
    // With record suppression, the count and the rows released read the source in
    // the same order (scan_suppression.cpp replays the count's classes): both from its
    // first block, never from where another session's scan of it happens to be.
    const bool synchronized = !s->suppression;
    s->scan = table_beginscan_strat(s->source, estate->es_snapshot, 0, nullptr, true, synchronized);
}

void close_partition(ReleaseScanState* s) {
    if (s->scan) table_endscan(s->scan);
    s->scan = nullptr;
    if (s->partition) table_close(s->partition, NoLock);  // locked until the transaction ends
    s->partition = nullptr;
}

// Starts the next leaf partition's scan; false when none is left.
bool open_next_partition(ReleaseScanState* s) {
    close_partition(s);
    if (s->next_partition >= list_length(s->partitions)) return false;
    EState* estate = s->css.ss.ps.state;
    s->partition = table_open(list_nth_oid(s->partitions, s->next_partition++), NoLock);  // locked at begin
    TupleDesc desc = RelationGetDescr(s->partition);
    s->partition_slot = ExecInitExtraTupleSlot(estate, desc, table_slot_callbacks(s->partition));
    s->partition_map = build_attrmap_by_name_if_req(desc, RelationGetDescr(s->source));
    s->row_slot = s->partition_map ? s->source_slot : s->partition_slot;
    s->scan = table_beginscan(s->partition, estate->es_snapshot, 0, nullptr);
    return true;
}

}  // namespace

// The next row of the source into row_slot; false at the end.
bool next_source_row(ReleaseScanState* s) {
    if (s->index_access && !s->counting) return next_index_row(s);
    if (!s->by_tables) {
        if (!s->scan) start_serial_scan(s);
        return table_scan_getnextslot(s->scan, ForwardScanDirection, s->source_slot);
    }
    for (;;) {
        if (s->scan && table_scan_getnextslot(s->scan, ForwardScanDirection, s->partition_slot)) {
            if (s->partition_map) execute_attr_map_slot(s->partition_map, s->partition_slot, s->source_slot);
            return true;
        }
        if (!open_next_partition(s)) return false;
    }
}

// Every row of the source under the query's snapshot, by a serial scan of its own:
// the scan the rows are released from (parallel, or not begun) is set aside and
// taken up again after, so the rows it then reads are not affected.
void for_each_source_row(ReleaseScanState* s, void (*on_row)(ReleaseScanState*, void*), void* arg) {
    TableScanDesc released = s->scan;
    s->scan = nullptr;
    s->next_partition = 0;  // a partitioned source: counted before any of its rows is released
    s->counting = true;     // the whole source, not what an index finds
    while (next_source_row(s)) on_row(s, arg);
    s->counting = false;
    if (!s->by_tables) {
        if (s->scan) table_endscan(s->scan);
        s->scan = released;
    } else {
        close_partition(s);
        s->next_partition = 0;
    }
}

namespace {

TupleTableSlot* release_next(ScanState* ss) {
    auto* s = reinterpret_cast<ReleaseScanState*>(ss);
    TupleTableSlot* out = ss->ss_ScanTupleSlot;
    ExecClearTuple(out);
    // With record suppression, the rows of the classes it withholds are skipped
    // (scan_suppression.cpp); their conditions, once evaluated, serve the row.
    bool conditions_done = false;
    if (s->suppression) prepare_suppression(s);
    for (;;) {
        if (!next_source_row(s)) return out;
        if (!s->suppression) break;
        if (suppression_keeps_row(s, ss->ps.ps_ExprContext, &conditions_done)) break;
        ResetExprContext(ss->ps.ps_ExprContext);
        CHECK_FOR_INTERRUPTS();
    }
    if (s->output_count == 0) return ExecStoreVirtualTuple(out);  // count(*): no column, no rule
    slot_getsomeattrs(s->row_slot, s->last_attno);
    if (s->in_place) {
        // The released row is the source row's deformed arrays, rewritten where a rule
        // applies: the columns released as they are cost nothing.
        out->tts_values = s->row_slot->tts_values;
        out->tts_isnull = s->row_slot->tts_isnull;
    } else {
        for (int k = 0; k < s->plain_count; ++k) {
            int c = s->plain[k];
            out->tts_values[c] = s->row_slot->tts_values[s->outputs[c].attno - 1];
            out->tts_isnull[c] = s->row_slot->tts_isnull[s->outputs[c].attno - 1];
        }
    }
    ExprContext* econtext = ss->ps.ps_ExprContext;
    econtext->ecxt_scantuple = s->row_slot;  // conditions read the original row
    MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
    s->in_rules = true;
    release_row(s, econtext, out->tts_values, out->tts_isnull, conditions_done);
    s->in_rules = false;
    MemoryContextSwitchTo(old);
    return ExecStoreVirtualTuple(out);
}

// The scan slot's own arrays again (after in-place rows; before rescans and at the end).
void restore_scan_slot(ReleaseScanState* s) {
    TupleTableSlot* out = s->css.ss.ss_ScanTupleSlot;
    if (!s->in_place || !out) return;
    ExecClearTuple(out);
    out->tts_values = s->slot_values;
    out->tts_isnull = s->slot_isnull;
}
bool release_recheck(ScanState*, TupleTableSlot*) { return true; }

// ---------------------------------------------------------------------------
// Executor callbacks
// ---------------------------------------------------------------------------

std::string columns_text(const std::vector<ReleasedColumn>& shape) {
    std::string s;
    for (const ReleasedColumn& c : shape) s += (s.empty() ? "" : ", ") + c.name;
    return s;
}

char* copy_string(const std::string& s) {
    const char* p = s.c_str();
    return pg_call([&] { return pstrdup(p); });
}

template <typename T>
T* zeroed_array(std::size_t n) {
    return static_cast<T*>(pg_call([&] { return palloc0(sizeof(T) * (n ? n : 1)); }));
}

}  // namespace

// Output `index` of the scan, releasing source column `col` by the policy's rules.
void init_output(ReleaseScanState* s, ReleasedOutput& out, int index, const ReleasedColumn& col, const Policy& policy,
                 const std::vector<int>& rule_condition, std::vector<char>& condition_used) {
    out.output = index;
    out.attno = col.attno;
    out.generalized = !col.hierarchy.empty() || col.pseudonymized;
    out.height = col.height;
    out.name = copy_string(col.name);
    out.rule_count = static_cast<int>(col.rules.size());
    out.rule_raised = zeroed_array<int>(col.rules.size());
    out.rule_condition = zeroed_array<int>(col.rules.size());
    for (std::size_t r = 0; r < col.rules.size(); ++r) {
        const PolicyRule& rule = policy.rules[col.rules[r]];
        out.rule_raised[r] = rule_level({rule.op, rule.level}, out.height);
        out.rule_condition[r] = rule_condition[col.rules[r]];
    }
    if (col.pseudonymized) {  // the key is read only when a pseudonymized column is
        if (!s->pseudonymizer) s->pseudonymizer = load_pseudonymizer(policy.name, s->cache_context);
        out.pseudonymizer = s->pseudonymizer;
    }
    if (out.generalized) {
        out.hierarchy = copy_string(col.hierarchy);
        out.levels = zeroed_array<LevelCache*>(out.height);
        Oid type = col.source_type;
        pg_call([&] {
            init_value_text(&out.value_text, type, CurrentMemoryContext);
            int16 length;
            bool by_value;
            get_typlenbyval(type, &length, &by_value);
            out.by_datum = by_value;
        });
    }
    s->last_attno = std::max(s->last_attno, out.attno);
    for (std::size_t r = 0; r < col.rules.size(); ++r) condition_used[out.rule_condition[r]] = 1;
}

void refuse_changed_release(const char* policy, const char* what) {
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("release of policy %s: %s", quote_literal_cstr(policy), what), errhint("Read the release again.")));
}

void reraise_rule_error(ReleaseScanState* s, MemoryContext context) {
    MemoryContextSwitchTo(context);
    ErrorData* e = CopyErrorData();
    FlushErrorState();
    s->in_rules = false;
    ereport(ERROR, (errcode(e->sqlerrcode),
                    errmsg("privrisk.release(%s): applying a disclosure rule failed on a row of the source",
                           quote_literal_cstr(s->policy)),
                    errdetail("The error's text is shown only to roles that may read the source.")));
}

namespace {

// The conditions of the rules on columns the plan reads (checked again here), each
// compiled once: natively where fast_condition.hpp can, else by the evaluator.
// count(*) through a release reads no column and applies no rule.
void compile_conditions(ReleaseScanState* s, const Policy& policy, const std::vector<std::size_t>& conditions,
                        const std::vector<char>& condition_used) {
    PlanState* ps = &s->css.ss.ps;
    s->condition_count = static_cast<int>(conditions.size());
    s->conditions = zeroed_array<ExprState*>(conditions.size());
    s->fast_conditions = zeroed_array<FastCondition*>(conditions.size());
    s->condition_value = zeroed_array<bool>(conditions.size());
    Bitmapset* read = nullptr;  // source columns the conditions read
    for (std::size_t i = 0; i < conditions.size(); ++i) {
        if (!condition_used[i]) continue;
        Expr* e = load_condition(s->source, policy.rules[conditions[i]], policy.name);
        pg_call([&] {
            pull_varattnos(reinterpret_cast<Node*>(e), 1, &read);
            s->fast_conditions[i] = compile_fast_condition(e);
            if (!s->fast_conditions[i]) s->conditions[i] = ExecInitExpr(e, ps);  // the evaluator only where needed
        });
    }
    for (int k = -1; (k = bms_next_member(read, k)) >= 0;)
        s->last_attno = std::max<AttrNumber>(s->last_attno, k + FirstLowInvalidHeapAttributeNumber);
    s->native = zeroed_array<int>(s->condition_count);
    s->generic = zeroed_array<int>(s->condition_count);
    for (int i = 0; i < s->condition_count; ++i) {
        if (s->fast_conditions[i]) s->native[s->native_count++] = i;
        if (s->conditions[i]) s->generic[s->generic_count++] = i;
    }
    // Native conditions raise no error and hierarchy misses report no value
    // (generalize_miss), so only the generic evaluator needs the per-row guard.
    s->guard_errors = !s->may_see_errors && s->generic_count > 0;
}

// The column of the release that output column `a` (of the column definition list
// the plan reads) releases: through a release view, the source column the view was
// made to release, by number (`granted`); else by name. Refused when the view's
// column was renamed or dropped since, or the types differ.
const ReleasedColumn& output_column(Form_pg_attribute a, const std::vector<ReleasedColumn>& shape,
                                    const std::vector<std::pair<std::string, AttrNumber>>& granted,
                                    const std::string& policy, const std::string& view_name) {
    std::string column = NameStr(a->attname);
    const ReleasedColumn* col = nullptr;
    if (!granted.empty()) {
        auto g = std::find_if(granted.begin(), granted.end(), [&](const auto& e) { return e.first == column; });
        if (g == granted.end())
            fail(ErrorKind::UndefinedObject, "release view " + quote_value(view_name) + " of policy " +
                                                 quote_value(policy) + " has no column " + quote_value(column));
        for (const ReleasedColumn& rc : shape)
            if (rc.attno == g->second) col = &rc;
        if (!col || col->name != column)
            fail(ErrorKind::InvalidParameter,
                 "column " + quote_value(column) + " of release view " + quote_value(view_name) + " (policy " +
                     quote_value(policy) + ") was " + (col ? "renamed to " + quote_value(col->name) : "dropped") +
                     " in the source since the view was made; the policy's owner makes the view again "
                     "(privrisk.create_release_view)");
    }
    for (const ReleasedColumn& rc : shape)
        if (granted.empty() && rc.name == column) col = &rc;
    if (!col)
        fail(ErrorKind::UndefinedObject, "the release of policy " + quote_value(policy) + " has no column " +
                                             quote_value(column) + " (its columns: " + columns_text(shape) + ")");
    if (col->type != a->atttypid) {
        Oid want = col->type, have = a->atttypid;
        std::string want_name = pg_call([&] { return format_type_be(want); });
        std::string have_name = pg_call([&] { return format_type_be(have); });
        fail(ErrorKind::InvalidParameter,
             "column " + quote_value(column) + " of the release of policy " + quote_value(policy) + " is " + want_name +
                 ", not " + have_name +
                 "; the column definition list (or release view) is out of date: recreate it with "
                 "privrisk.create_release_view");
    }
    return *col;
}

void begin_release_body(ReleaseScanState* s, EState* estate) {
    auto* plan = reinterpret_cast<CustomScan*>(s->css.ss.ps.plan);
    PlanState* ps = &s->css.ss.ps;
    bool isnull = true;
    Datum name = pg_call([&] {
        auto* arg = static_cast<Expr*>(linitial(plan->custom_exprs));
        if (IsA(arg, Const)) {  // the usual case: no expression to build (nor to JIT-compile on large plans)
            isnull = castNode(Const, arg)->constisnull;
            return castNode(Const, arg)->constvalue;
        }
        ExprState* e = ExecInitExpr(arg, ps);
        return ExecEvalExprSwitchContext(e, ps->ps_ExprContext, &isnull);
    });
    if (isnull) fail(ErrorKind::InvalidParameter, "privrisk.release: policy must not be NULL");
    std::string policy_name(pg_call([&] { return text_to_cstring(DatumGetTextPP(name)); }));
    // The release view whose definition holds this scan, if any (its mark), before the index's arguments.
    List* own_exprs = list_truncate(list_copy(plan->custom_exprs), intVal(lthird(plan->custom_private)));
    const Oid view = list_length(own_exprs) > 1 ? marked_view(own_exprs) : InvalidOid;
    Policy policy = load_readable_policy(policy_name, view);
    s->policy = copy_string(policy.name);
    s->rule_count = static_cast<int>(policy.rules.size());
    s->source = open_policy_source(policy);
    Oid source = policy.source;
    s->source_name = pg_call([&] { return get_rel_name(source); });
    s->may_see_errors = reads_source(source);
    s->built_as = GetUserId();
    verify_pins(policy, static_cast<List*>(linitial(plan->custom_private)),
                estate->es_plannedstmt);  // read for a coordinator: before any row or rule
    std::vector<ReleasedColumn> shape = release_shape(policy, s->source);
    bool partitioned = pg_call([&] { return read_by_tables(s->source); });
    s->source_slot = pg_call([&] {
        TupleDesc desc = RelationGetDescr(s->source);
        return ExecInitExtraTupleSlot(estate, desc, partitioned ? &TTSOpsVirtual : table_slot_callbacks(s->source));
    });
    s->row_slot = s->source_slot;
    s->by_tables = partitioned;
    if (partitioned) s->partitions = leaf_partitions(s->source);
    s->cache_context = pg_call(
        [] { return AllocSetContextCreate(CurrentMemoryContext, "privrisk release cache", ALLOCSET_DEFAULT_SIZES); });
    s->cache_memory = construct_in<PgMemoryResource>(s->cache_context, s->cache_context);
    s->cache_limit = memory_bound().bytes;
    s->hierarchy_generation = hierarchy_generation();

    // Conditions, each compiled once however many rules share its bound tree;
    // conditions[i] is the first rule with that tree.
    std::vector<std::size_t> conditions;
    std::vector<int> rule_condition(policy.rules.size());
    for (std::size_t r = 0; r < policy.rules.size(); ++r) {
        std::size_t i = 0;
        while (i < conditions.size() && policy.rules[conditions[i]].condition_tree != policy.rules[r].condition_tree)
            ++i;
        if (i == conditions.size()) conditions.push_back(r);
        rule_condition[r] = static_cast<int>(i);
    }
    std::vector<char> condition_used(conditions.size(), 0);

    // Read through one of its release views, a column is the source column the
    // view was made to release, by number: renamed or dropped since, it is
    // refused, and a column added since is not one of the view's.
    std::vector<std::pair<std::string, AttrNumber>> granted;
    if (OidIsValid(view) && policy_of_view(view) == policy.name) {
        check_view_definition(view, policy.name, policy.base_name);
        check_view_open(view, policy.source);  // a watched view that fails closed (docs/watch.md)
        granted = view_columns(view);
    }
    const char* view_relname = OidIsValid(view) ? pg_call([&] { return get_rel_name(view); }) : nullptr;
    const std::string view_name = view_relname ? view_relname : "";

    // Output columns: those of the column definition list the plan reads.
    TupleDesc desc = s->css.ss.ss_ScanTupleSlot->tts_tupleDescriptor;
    s->output_count = desc->natts;
    s->outputs = zeroed_array<ReleasedOutput>(desc->natts);
    for (int c = 0; c < desc->natts; ++c) {
        const ReleasedColumn& col = output_column(TupleDescAttr(desc, c), shape, granted, policy.name, view_name);
        init_output(s, s->outputs[c], c, col, policy, rule_condition, condition_used);
    }

    // Record suppression reads the quasi-identifiers' released values whatever the plan reads.
    s->suppression = begin_suppression(s, policy, shape, rule_condition, condition_used,
                                       list_length(static_cast<List*>(linitial(plan->custom_private))) > 0);

    compile_conditions(s, policy, conditions, condition_used);

    s->ruled = zeroed_array<ReleasedOutput*>(s->output_count);
    s->plain = zeroed_array<int>(s->output_count);
    s->in_place = s->output_count > 0;
    for (int c = 0; c < s->output_count; ++c) {
        const ReleasedOutput& out = s->outputs[c];
        if (out.rule_count > 0 || out.generalized) s->ruled[s->ruled_count++] = &s->outputs[c];
        else s->plain[s->plain_count++] = c;
        s->in_place &= out.attno == c + 1;
    }
    s->slot_values = s->css.ss.ss_ScanTupleSlot->tts_values;
    s->slot_isnull = s->css.ss.ss_ScanTupleSlot->tts_isnull;

    // The index the plan chose, if the columns it relies on still show their source the same way.
    List* access = static_cast<List*>(lsecond(plan->custom_private));
    if (access != NIL && !partitioned && release_index_scans()) {
        std::vector<IndexableColumn> now;
        for (const ReleasedColumn& c : shape) now.push_back(indexable_column(policy, c));
        begin_index_access(s, access, now);
    }
}

void begin_release(CustomScanState* node, EState* estate, int) {
    guarded([&] { begin_release_body(reinterpret_cast<ReleaseScanState*>(node), estate); });
}

// Errors raised while a rule is applied may carry a source value (a cast in a
// condition evaluated generically): a reader who may not see the source gets the
// error without its text. Without such a condition the per-row PG_TRY is skipped.
TupleTableSlot* exec_release(CustomScanState* node) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    if (!s->guard_errors) {
        // ExecScan's own shortcut when there is no qual, projection or recheck to do,
        // without its call through a pointer per row.
        if (!node->ss.ps.qual && !node->ss.ps.ps_ProjInfo && !node->ss.ps.state->es_epq_active) {
            ResetExprContext(node->ss.ps.ps_ExprContext);
            CHECK_FOR_INTERRUPTS();
            return release_next(&node->ss);
        }
        return ExecScan(&node->ss, release_next, release_recheck);
    }
    TupleTableSlot* volatile result = nullptr;
    MemoryContext context = CurrentMemoryContext;
    PG_TRY();
    { result = ExecScan(&node->ss, release_next, release_recheck); }
    PG_CATCH();
    {
        if (!s->in_rules) PG_RE_THROW();
        reraise_rule_error(s, context);
    }
    PG_END_TRY();
    return result;
}

void end_release(CustomScanState* node) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    restore_scan_slot(s);
    end_suppression(s);
    end_index_access(s);
    close_partition(s);
    if (s->pseudonymizer) pseudonymizer_wipe(s->pseudonymizer);
    s->pseudonymizer = nullptr;
    if (s->source) table_close(s->source, NoLock);
    s->source = nullptr;
}

void rescan_release(CustomScanState* node) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    restore_scan_slot(s);
    if (s->suppression) rescan_suppression(s);
    rescan_index_access(s);
    if (s->by_tables) {
        close_partition(s);
        s->next_partition = 0;
    } else if (s->scan) {
        table_rescan(s->scan, nullptr);
    }
}

Size estimate_release_dsm(CustomScanState* node, ParallelContext*) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    return table_parallelscan_estimate(s->source, node->ss.ps.state->es_snapshot);
}

void initialize_release_dsm(CustomScanState* node, ParallelContext*, void* coordinate) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    auto* shared = static_cast<ParallelTableScanDesc>(coordinate);
    table_parallelscan_initialize(s->source, shared, node->ss.ps.state->es_snapshot);
    s->scan = table_beginscan_parallel(s->source, shared);
}

void reinitialize_release_dsm(CustomScanState* node, ParallelContext*, void* coordinate) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    table_parallelscan_reinitialize(s->source, static_cast<ParallelTableScanDesc>(coordinate));
}

void initialize_release_worker(CustomScanState* node, shm_toc*, void* coordinate) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    s->scan = table_beginscan_parallel(s->source, static_cast<ParallelTableScanDesc>(coordinate));
}

void explain_release(CustomScanState* node, List* ancestors, ExplainState* es) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    ExplainPropertyText("Policy", s->policy, es);
    ExplainPropertyText("Source", s->source_name ? s->source_name : "?", es);
    explain_index_access(s, ancestors, es);
    ExplainPropertyInteger("Rules", nullptr, s->rule_count, es);
    if (s->suppression) ExplainPropertyText("Record Suppression", suppression_description(s->suppression), es);
    const char* class_index;
    int64 classes, candidates;
    if (s->suppression && suppression_by_class(s->suppression, &class_index, &classes, &candidates)) {
        ExplainPropertyText("Suppression Class Index", class_index, es);
        if (es->analyze) {
            ExplainPropertyInteger("Suppression Classes Counted", nullptr, classes, es);
            ExplainPropertyInteger("Suppression Candidates Read", nullptr, candidates, es);
        }
    } else if (s->suppression && es->analyze && !s->index_access && s->may_see_errors) {
        // Only to roles that may read the source: with LIMIT, it tells how many withheld rows come first.
        ExplainPropertyInteger("Suppression Rows Replayed", nullptr, suppression_rows_replayed(s->suppression), es);
    }
    if (s->suppression && es->analyze && suppression_count_workers(s->suppression) >= 0)
        ExplainPropertyInteger("Suppression Count Workers", nullptr, suppression_count_workers(s->suppression), es);
    // Conditions of the columns read, and how many of them run natively.
    ExplainPropertyInteger("Conditions Evaluated", nullptr, s->native_count + s->generic_count, es);
    ExplainPropertyInteger("Conditions Native", nullptr, s->native_count, es);
    // The value cache: what it holds, and the values it had no room for. Only to roles that may
    // read the source: its entries count distinct source values, which a release reader must not
    // learn (with LIMIT n, whether row n's hidden value repeats an earlier one).
    if (es->analyze && s->may_see_errors) {
        long values = 0;
        for (int c = 0; c < s->output_count; ++c) values += s->outputs[c].cached;
        ExplainPropertyInteger("Value Cache Entries", nullptr, values, es);
        ExplainPropertyInteger("Value Cache Memory", "kB",
                               static_cast<int64>(MemoryContextMemAllocated(s->cache_context, true) / 1024), es);
        ExplainPropertyInteger("Value Cache Misses Uncached", nullptr, s->cache_refused, es);
    }
}

const CustomExecMethods exec_methods = {
    kReleaseScanName,
    begin_release,
    exec_release,
    end_release,
    rescan_release,
    nullptr,
    nullptr,
    estimate_release_dsm,
    initialize_release_dsm,
    reinitialize_release_dsm,
    initialize_release_worker,
    nullptr,
    explain_release,
};

Node* create_release_state(CustomScan*) {
    auto* s = reinterpret_cast<ReleaseScanState*>(newNode(sizeof(ReleaseScanState), T_CustomScanState));
    s->css.methods = &exec_methods;
    return reinterpret_cast<Node*>(s);
}

}  // namespace

const CustomScanMethods release_scan_methods = {kReleaseScanName, create_release_state};

}  // namespace privrisk::pg
