// core/docs/conventions.md, checked through the compiler and at run time. The header
// scan (tests/conventions/check_conventions.py, run by ./vantage test) finds new headers and
// new enums; this file checks what only the types can say: what validate() and counters()
// return, that removed getters stay removed, that to_string names are distinct, and that
// output vectors are cleared before they are filled.
#include <gtest/gtest.h>

#include <concepts>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "vantage/vantage.hpp"

namespace vantage {
namespace {

// ---- 1. validate(): std::string_view validate() const, empty when valid ----------------

template <class T>
concept ValidatesAsStringView = requires(const T& t) {
    { t.validate() } -> std::same_as<std::string_view>;
};

template <class... T>
constexpr bool all_validate_as_string_view = (ValidatesAsStringView<T> && ...);

static_assert(
    all_validate_as_string_view<AdaptiveDelayOptions, CorrectionSmoothingOptions, CrossLinkOptions,
                                DeltaBaselineOptions, DeltaStreamOptions, WireOptions, GravityField, HistoryOptions,
                                InputScheduleOptions, LossyLinkOptions, NearbyOptions, PredictionOptions,
                                ByteBudgetOptions, SmoothClockOptions, ExtrapolationOptions, SpatialGridOptions>,
    "every options type's validate() returns std::string_view (core/docs/conventions.md, rule 1)");

TEST(Conventions, EveryDefaultOptionsValidates) {
    EXPECT_EQ(AdaptiveDelayOptions{}.validate(), "");
    EXPECT_EQ(CorrectionSmoothingOptions{}.validate(), "");
    EXPECT_EQ(CrossLinkOptions{}.validate(), "");
    EXPECT_EQ(DeltaBaselineOptions{}.validate(), "");
    EXPECT_EQ(DeltaStreamOptions{}.validate(), "");
    EXPECT_EQ(WireOptions{}.validate(), "");
    EXPECT_EQ(HistoryOptions{}.validate(), "");
    EXPECT_EQ(InputScheduleOptions{}.validate(), "");
    EXPECT_EQ(LossyLinkOptions{}.validate(), "");
    EXPECT_EQ(NearbyOptions{}.validate(), "");
    EXPECT_EQ(PredictionOptions{}.validate(), "");
    EXPECT_EQ(ByteBudgetOptions{}.validate(), "");
    EXPECT_EQ(SmoothClockOptions{}.validate(), "");
    EXPECT_EQ(ExtrapolationOptions{}.validate(), "");
    EXPECT_EQ(SpatialGridOptions{}.validate(), "");
}

TEST(Conventions, AnInvalidOptionsNamesItsField) {
    EXPECT_NE(NearbyOptions{.min_cell = 0.0f}.validate().find("min_cell"), std::string_view::npos);
    EXPECT_NE((GravityField{.strength = 1.0f, .softening_sq = -1.0f}).validate().find("softening_sq"),
              std::string_view::npos);
    EXPECT_NE(CrossLinkOptions{.id_limit = 0}.validate().find("id_limit"), std::string_view::npos);
    EXPECT_NE(SpatialGridOptions{.cell_size = 0.0f}.validate().find("cell_size"), std::string_view::npos);
}

// ---- 2. to_string for every enum, distinct names, Ok first in statuses ------------------

// Every value the underlying type can hold up to 255: the named ones must be exactly
// `expected` many, non-empty and distinct; the rest read as the enum's one fallback
// ("unknown <enum>", what 255 gives: no public enum has that many values).
template <class E>
void expect_named(std::size_t expected, const char* enum_name) {
    const std::string fallback = to_string(static_cast<E>(255));
    EXPECT_EQ(fallback.rfind("unknown ", 0), 0u) << enum_name;
    std::set<std::string> names;
    std::size_t named = 0;
    for (int v = 0; v < 256; ++v) {
        const std::string name = to_string(static_cast<E>(v));
        ASSERT_FALSE(name.empty()) << enum_name << " value " << v;
        if (name == fallback) continue;
        ++named;
        EXPECT_TRUE(names.insert(name).second) << enum_name << ": '" << name << "' names two values";
    }
    EXPECT_EQ(named, expected) << enum_name << ": enumerators with a to_string name";
}

TEST(Conventions, EveryEnumHasDistinctNames) {
    expect_named<WireError>(11, "WireError");
    expect_named<NearbyStatus>(7, "NearbyStatus");
    expect_named<NearbyEventKind>(2, "NearbyEventKind");
    expect_named<CrossLinkStatus>(6, "CrossLinkStatus");
    expect_named<AoiEventKind>(2, "AoiEventKind");
    expect_named<RecoveryPolicy>(2, "RecoveryPolicy");
    expect_named<AckFrontier>(2, "AckFrontier");
    expect_named<AckOutcome>(6, "AckOutcome");
    expect_named<DeltaMessageType>(2, "DeltaMessageType");
    expect_named<RecordResult>(3, "RecordResult");
    expect_named<HistoryCoverage>(4, "HistoryCoverage");
    expect_named<Submission>(6, "Submission");
    expect_named<SendFate>(5, "SendFate");
    expect_named<Reconciliation::Outcome>(3, "Reconciliation::Outcome");
    expect_named<Seating::Kind>(3, "Seating::Kind");
    expect_named<ReusePolicy>(2, "ReusePolicy");
    expect_named<ClockMode>(2, "ClockMode");
    expect_named<SnapshotAdd>(5, "SnapshotAdd");
    expect_named<SampleKind>(6, "SampleKind");
    expect_named<StreamStatus>(3, "StreamStatus");
}

TEST(Conventions, StatusesDefaultToOk) {
    static_assert(WireError{} == WireError::Ok);
    static_assert(NearbyStatus{} == NearbyStatus::Ok);
    static_assert(CrossLinkStatus{} == CrossLinkStatus::Ok);
    static_assert(RecordResult{} == RecordResult::Ok);
    static_assert(StreamStatus{} == StreamStatus::Ok);
    EXPECT_STREQ(to_string(WireError::Ok), "ok");
    EXPECT_STREQ(to_string(NearbyStatus::Ok), "ok");
    EXPECT_STREQ(to_string(CrossLinkStatus::Ok), "ok");
    EXPECT_STREQ(to_string(RecordResult::Ok), "ok");
}

// ---- 5. counters: one <Type>Counters through counters(), no duplicate getters -----------

template <class T, class C>
concept CountsWith = requires(const T& t) {
    { t.counters() } -> std::same_as<const C&>;
};

struct Step {
    float dx = 0.0f;
};

static_assert(CountsWith<AdaptiveDelay, AdaptiveDelayCounters>);
static_assert(CountsWith<CorrectionSmoother<Vec2>, CorrectionSmootherCounters>);
static_assert(CountsWith<DeltaBaseline, DeltaBaselineCounters>);
static_assert(CountsWith<DeltaMirror<Vec2>, DeltaMirrorCounters>);
static_assert(CountsWith<DeltaStream, DeltaStreamCounters>);
static_assert(CountsWith<DeltaReceiver<Vec2>, DeltaReceiverCounters>);
static_assert(CountsWith<HistoricalStateBuffer<std::uint32_t, Vec2>, HistoricalStateBufferCounters>);
static_assert(CountsWith<InputFrontier, InputFrontierCounters>);
static_assert(CountsWith<InputSchedule<Step>, InputScheduleCounters>);
static_assert(CountsWith<LossyLink, LossyLinkCounters>);
static_assert(CountsWith<NearbyDetector, NearbyDetectorCounters>);
static_assert(CountsWith<PredictedEntity<Vec2, Step>, PredictedEntityCounters>);
static_assert(CountsWith<SeatTable<std::uint32_t>, SeatTableCounters>);
static_assert(CountsWith<SmoothClock, SmoothClockCounters>);

// The getters the counters structs replaced stay gone (one spelling per number).
#define VANTAGE_HAS_GETTER(getter)                \
    template <class T>                            \
    concept has_##getter = requires(const T& t) { \
        t.getter();                               \
    }
VANTAGE_HAS_GETTER(full_rebuilds);
VANTAGE_HAS_GETTER(operations);
VANTAGE_HAS_GETTER(accepted);
VANTAGE_HAS_GETTER(rejected);
VANTAGE_HAS_GETTER(snaps);
VANTAGE_HAS_GETTER(vacated);
VANTAGE_HAS_GETTER(arrivals);
#undef VANTAGE_HAS_GETTER
static_assert(!has_full_rebuilds<DeltaBaseline>);
static_assert(!has_operations<NearbyDetector>);
static_assert(!has_accepted<InputFrontier>);
static_assert(!has_rejected<InputSchedule<Step>>);
static_assert(!has_snaps<SmoothClock>);
static_assert(!has_snaps<CorrectionSmoother<Vec2>>);
static_assert(!has_vacated<SeatTable<std::uint32_t>>);
static_assert(!has_arrivals<AdaptiveDelay>);

// ---- 6. positions: Vec2 only ------------------------------------------------------------

template <class T>
concept summarizes_at_xy = requires(const T& t, std::vector<Summary>& out) {
    t.summarize(0.0f, 0.0f, 0.5f, out);
};
static_assert(!summarizes_at_xy<AggregateTree>, "AggregateTree takes positions as Vec2 (conventions.md, rule 6)");

// ---- 4. outputs: cleared, then filled ---------------------------------------------------

const std::vector<std::uint32_t> kJunk = {77777, 88888};

TEST(Conventions, OutputVectorsAreClearedBeforeTheyAreFilled) {
    const std::vector<Vec2> points = {{1.0f, 1.0f}, {2.0f, 2.0f}, {50.0f, 50.0f}};

    std::vector<std::uint32_t> out = kJunk;
    EXPECT_EQ(brute_force_in_radius(points, {0.0f, 0.0f}, 5.0f, out), 2u);
    EXPECT_EQ(out, (std::vector<std::uint32_t>{0, 1}));

    SpatialGrid grid({.origin = {0.0f, 0.0f}, .extent = {100.0f, 100.0f}, .cell_size = 10.0f});
    grid.build(points);
    out = kJunk;
    EXPECT_EQ(grid.query_radius({0.0f, 0.0f}, 5.0f, out), 2u);
    EXPECT_EQ(std::set<std::uint32_t>(out.begin(), out.end()), (std::set<std::uint32_t>{0, 1}));

    CrossLink cl({.id_limit = 8});
    for (std::uint32_t i = 0; i < points.size(); ++i) ASSERT_EQ(cl.add(i, points[i]), CrossLinkStatus::Ok);
    out = kJunk;
    EXPECT_EQ(cl.neighbors_in_radius(0, 5.0f, out), CrossLinkStatus::Ok);
    EXPECT_EQ(out, (std::vector<std::uint32_t>{1}));
    out = kJunk;
    EXPECT_EQ(cl.neighbors_in_radius(5, 5.0f, out), CrossLinkStatus::UnknownId);
    EXPECT_TRUE(out.empty()) << "a refused call leaves the output empty";

    VisibilitySet before, now;
    before.insert(1);
    now.insert(2);
    std::vector<std::uint32_t> entered = kJunk, left = kJunk;
    now.diff(before, entered, left);
    EXPECT_EQ(entered, (std::vector<std::uint32_t>{2}));
    EXPECT_EQ(left, (std::vector<std::uint32_t>{1}));

    AckWindow window;
    window.observe(1);
    window.observe(3);
    std::vector<std::uint64_t> missing = {99, 98};
    window.missing_since(0, missing);
    EXPECT_EQ(missing, (std::vector<std::uint64_t>{0, 2}));

    SlotAllocator slots;
    const SlotKey a = slots.alloc();
    std::vector<SlotKey> live = {SlotKey{500, 1}};
    slots.live_keys(live);
    EXPECT_EQ(live, (std::vector<SlotKey>{a}));

    LossyLink link;
    const std::vector<std::uint8_t> datagram = {1, 2, 3};
    ASSERT_EQ(link.send(0.0, datagram), SendFate::Scheduled);
    std::vector<std::vector<std::uint8_t>> got = {{9}};
    EXPECT_EQ(link.receive(1e6, got), 1u);
    EXPECT_EQ(got, (std::vector<std::vector<std::uint8_t>>{datagram}));

    AggregateTree tree;
    const std::vector<WeightedPoint> weighted = {{1.0f, 1.0f, 1.0f}};
    tree.build(weighted, 4);
    std::vector<Summary> summaries(3);
    tree.summarize({0.0f, 0.0f}, 0.0f, summaries);
    EXPECT_EQ(summaries.size(), 1u);
}

}  // namespace
}  // namespace vantage
