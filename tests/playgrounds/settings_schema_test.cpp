// SettingsSchema: one declaration per field gives the Param (name, range, get/set, restart,
// the apply hook) and validate() from the same range.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/settings_schema.hpp"

namespace vantage::play {
namespace {

struct Demo {
    double theta = 0.5;  // 0..2
    int count = 3;       // 1..8 (rebuilds)
    bool on = true;
};

SettingsSchema<Demo> demo_schema() {
    SettingsSchema<Demo> d;
    d.real("theta", &Demo::theta, {.label = "theta", .min = 0.0, .max = 2.0, .help = "angle", .apply = true});
    d.integer("count", &Demo::count, {.label = "count", .unit = "Hz", .min = 1, .max = 8, .restart = true});
    d.flag("on", &Demo::on, {.label = "on", .min = 5, .max = 9});  // a flag's range is always 0..1
    return d;
}

TEST(SettingsSchema, EachDeclarationBecomesOneParamWithItsSpec) {
    Demo demo;
    std::vector<Param> params;
    int applied = 0;
    demo_schema().bind(demo, params, [&] { ++applied; });
    ASSERT_EQ(params.size(), 3u);
    EXPECT_EQ(params[0].name, "theta");
    EXPECT_EQ(params[0].kind, Param::Kind::Real);
    EXPECT_EQ(params[0].help, "angle");
    EXPECT_EQ(params[1].unit, "Hz");
    EXPECT_EQ(params[1].kind, Param::Kind::Int);
    EXPECT_TRUE(params[1].restart);
    EXPECT_EQ(params[2].kind, Param::Kind::Bool);
    EXPECT_EQ(params[2].min, 0.0);
    EXPECT_EQ(params[2].max, 1.0);
    // The defaults are the struct's.
    EXPECT_EQ(params[0].get(), 0.5);
    EXPECT_EQ(params[1].get(), 3.0);
    EXPECT_EQ(params[2].get(), 1.0);
}

TEST(SettingsSchema, SetWritesTheFieldAndOnlyAnApplySettingCallsTheHook) {
    Demo demo;
    std::vector<Param> params;
    int applied = 0;
    demo_schema().bind(demo, params, [&] { ++applied; });
    params[0].set(1.25);
    params[1].set(7.0);
    params[2].set(0.0);
    EXPECT_EQ(demo.theta, 1.25);
    EXPECT_EQ(demo.count, 7);
    EXPECT_FALSE(demo.on);
    EXPECT_EQ(applied, 1);
}

TEST(SettingsSchema, APrefixNamesOneLanesCopy) {
    Demo demo;
    std::vector<Param> params;
    demo_schema().bind(demo, params, [] {}, {"left_", "left: "});
    EXPECT_EQ(params[0].name, "left_theta");
    EXPECT_EQ(params[0].label, "left: theta");
}

TEST(SettingsSchema, ValidateRejectsOutOfRangeAndNaNNamingTheSetting) {
    const SettingsSchema<Demo> schema = demo_schema();
    EXPECT_EQ(schema.validate(Demo{}), "");
    EXPECT_NE(schema.validate(Demo{.theta = 2.5}).find("'theta'"), std::string::npos);
    EXPECT_NE(schema.validate(Demo{.theta = std::nan("")}).find("'theta'"), std::string::npos);
    EXPECT_NE(schema.validate(Demo{.count = 0}).find("'count'"), std::string::npos);
}

}  // namespace
}  // namespace vantage::play
