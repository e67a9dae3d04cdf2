# PGXS build of the privrisk module. The C++ core and the adapters compile into
# one shared library; CMakeLists.txt builds the unit tests and client programs.
MODULE_big = privrisk
MODULEDIR  = extension
EXT_VERSION = 0.15

# The extension is described once, by the fragments in src/sql/<concept>/:
# catalog.sql (tables, types, sequences: run once), catalog_rules.sql
# (triggers, row security, event triggers: once), functions.sql and one file
# per long body (CREATE OR REPLACE: replayable), views.sql (replayable) and
# comments.sql; src/sql/privileges.sql revokes by rule. The install script joins them in concept order (a concept only
# uses those before it); an upgrade script is a hand-written delta from
# extension/upgrade/ followed by every replayable fragment and the comments.
CONCEPTS   = common labels hierarchy classes measures ck information dtrisk profiles search dp release pseudonym watch report
fragments  = $(foreach c,$(CONCEPTS),$(wildcard src/sql/$(c)/$(1).sql))
bodies     = $(filter-out $(addprefix src/sql/$(1)/,catalog.sql catalog_rules.sql functions.sql views.sql comments.sql),$(sort $(wildcard src/sql/$(1)/*.sql)))
REPLAYABLE = $(foreach c,$(CONCEPTS),$(call bodies,$(c)) $(wildcard src/sql/$(c)/functions.sql)) $(call fragments,views) \
             src/sql/privileges.sql
INSTALL_SQL = $(call fragments,catalog) $(REPLAYABLE) $(call fragments,catalog_rules) $(call fragments,comments)
UPGRADES   = $(patsubst extension/upgrade/%.sql,extension/privrisk--%.sql,$(wildcard extension/upgrade/*.sql))

# Scripts of released versions (0.1 … 0.14, as shipped), frozen in one archive:
# installed so that older databases can update along the chain to 0.14 and on,
# and CREATE EXTENSION … VERSION '0.14' still installs what 0.14 shipped.
RELEASED   = privrisk--0.1.sql privrisk--0.10.sql privrisk--0.11.sql privrisk--0.12.sql privrisk--0.13.sql privrisk--0.14.sql \
             $(foreach v,0.1--0.2 0.2--0.3 0.3--0.4 0.4--0.5 0.5--0.6 0.6--0.7 0.7--0.8 0.8--0.9 0.9--0.10 0.10--0.11 0.11--0.12 0.12--0.13 0.13--0.14,privrisk--$(v).sql)
DATA       = extension/privrisk.control
# What privrisk.report() inlines into its page (docs/report.md), installed beside the scripts.
REPORT_ASSETS = $(addprefix extension/privrisk-report-,template.html charts.js vega.min.js vega-lite.min.js)
DATA_built = extension/privrisk--$(EXT_VERSION).sql $(UPGRADES) $(addprefix extension/released/,$(RELEASED)) $(REPORT_ASSETS)
OBJS       = $(patsubst %.cpp,%.o,$(sort $(wildcard src/core/*/*.cpp src/pg/*.cpp src/pg/*/*.cpp)))
# PostgreSQL's headers as system headers (-isystem makes GCC ignore PGXS's -I for the same
# directory): -Wextra then warns about privrisk's code, not about unused parameters of
# PostgreSQL's inline functions. Aggregates are often initialized in part, on purpose.
PG_CPPFLAGS = -Isrc/core -Isrc/pg -isystem $(includedir_server)
PG_CXXFLAGS = -std=c++17 -Wall -Wextra -Wno-missing-field-initializers -Wno-register
SHLIB_LINK  = -lstdc++ -lsodium

# The report client, installed with the extension into PostgreSQL's bindir (CMake builds the
# same program for the tests, in build/).
SCRIPTS_built = src/report/privrisk-report
EXTRA_CLEAN   = src/report/privrisk-report

# pg_regress suites live in test/regress/{sql,expected}; results go to build/regress.
REGRESS      = $(patsubst test/regress/sql/%.sql,%,$(sort $(wildcard test/regress/sql/*.sql)))
REGRESS_OPTS = --load-extension=privrisk --inputdir=test/regress --outputdir=build/regress
# Isolation specs (PostgreSQL's isolation tester): concurrent sessions, in test/isolation/{specs,expected}.
ISOLATION      = $(patsubst test/isolation/specs/%.spec,%,$(sort $(wildcard test/isolation/specs/*.spec)))
ISOLATION_OPTS = --load-extension=privrisk --inputdir=test/isolation --outputdir=build/isolation

# make DEBUG_INFO=-g1 (scripts/test, scripts/bench): line tables only, which name
# the function and line of every frame in a sanitizer report or a backtrace, in
# 60% of the compile time of PostgreSQL's -g (full debug information, the default).
ifdef DEBUG_INFO
PG_CXXFLAGS += $(DEBUG_INFO)
endif

# make SANITIZE=1 (scripts/test --sanitize): AddressSanitizer and UBSan, and any
# undefined behaviour stops the backend so that no report can scroll by unseen.
# scripts/test builds this in a copy of the sources (build/sanitize/module), never
# here: the objects live beside their sources, and sanitized ones left in the tree
# would be linked into the next normal build. In the tree, SANITIZE=1 only serves
# installcheck, whose results then go beside the sanitized build.
# At -O1, which compiles in half the time of -O2 under the sanitizers.
ifdef SANITIZE
SANITIZE_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
PG_CXXFLAGS  += $(SANITIZE_FLAGS) -O1
SHLIB_LINK   += $(SANITIZE_FLAGS)
REGRESS_OPTS += --outputdir=build/sanitize/regress
ISOLATION_OPTS += --outputdir=build/sanitize/isolation
endif

# CORE_LIB=LIB links the core library that CMake built for the unit tests
# (build/libprivrisk_core.a, or build/sanitize/cmake/'s under SANITIZE=1) instead
# of compiling src/core a second time: the module then runs the very objects the
# unit tests tested. Whole, as the module without it has every core object.
# scripts/test and scripts/bench pass it; a plain make compiles src/core here.
ifdef CORE_LIB
OBJS       := $(filter src/pg/%,$(OBJS))
SHLIB_LINK := -Wl,--whole-archive $(CORE_LIB) -Wl,--no-whole-archive $(SHLIB_LINK)
endif

# No LLVM bitcode: clang is not needed to build or install.
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

SCRIPT_HEAD = printf '%s\n' '\echo Use "CREATE EXTENSION privrisk" to load this file. \quit'

extension/privrisk--$(EXT_VERSION).sql: $(INSTALL_SQL)
	{ $(SCRIPT_HEAD); for f in $^; do printf '\n-- %s\n' $$f; cat $$f; done; } > $@

# A delta's line "-- include: FILE" stands for that run-once fragment (a catalog a version adds).
extension/privrisk--%--$(EXT_VERSION).sql: extension/upgrade/%--$(EXT_VERSION).sql $(REPLAYABLE) $(call fragments,comments) \
		$(call fragments,catalog)
	{ $(SCRIPT_HEAD); for f in $(filter-out $(call fragments,catalog),$^); do printf '\n-- %s\n' $$f; \
	  awk '/^-- include: / { while ((getline line < $$3) > 0) print line; next } { print }' $$f; done; } > $@

extension/privrisk-report-%: src/report/%
	cp $< $@
extension/privrisk-report-vega.min.js: third_party/vega/vega-5.22.1.min.js
	cp $< $@
extension/privrisk-report-vega-lite.min.js: third_party/vega/vega-lite-5.6.0.min.js
	cp $< $@

src/report/privrisk-report: src/report/privrisk_report.cpp
	$(CXX) -std=c++17 -O2 -Wall $< -o $@ $(shell pkg-config --cflags --libs libpqxx libpq)

$(addprefix extension/released/,$(RELEASED)): extension/released-0.14.tar.gz
	mkdir -p extension/released && tar -xzf $< -C extension/released && touch $(addprefix extension/released/,$(RELEASED))

$(OBJS): $(wildcard src/core/*/*.hpp src/pg/*/*.hpp)
ifdef CORE_LIB
$(MODULE_big)$(DLSUFFIX): $(CORE_LIB)
endif
