#include "engine/eval/elemwise_modes.h"

#include <numbers>

namespace mgedump::engine::eval::elemwise {
namespace {

// The x ≥ 0 with erf(x) = p and erfc(x) = q, where p + q = 1 and q carries
// the digits p loses near 1.
double erfinv_nonnegative(double p, double q) {
    if (p == 0) return 0;
    if (q == 0) return std::numeric_limits<double>::infinity();
    // Winitzki's closed form (a = 0.147, relative error < 2e-3) as the start,
    // with ln(1 − p²) written as ln(q (1 + p)) so it keeps its digits near 1.
    constexpr double a = 0.147;
    const double l = std::log(q * (1 + p));
    const double t = 2 / (std::numbers::pi * a) + l / 2;
    double x = std::sqrt(std::sqrt(t * t - l / a) - t);
    // Halley's iteration on erf(x) − p (cubic: three steps reach double
    // precision; the residual is taken as q − erfc(x) where p is near 1).
    const double two_over_sqrt_pi = 2 / std::sqrt(std::numbers::pi);
    for (int i = 0; i < 4; ++i) {
        const double f = p <= 0.5 ? std::erf(x) - p : q - std::erfc(x);
        const double d = f / (two_over_sqrt_pi * std::exp(-x * x));
        x -= d / (1 + x * d);
    }
    return x;
}

}  // namespace

// Domains and special values as dnn/src/common/elemwise/erfinv.h has them.
double erfinv(double z) {
    if (std::isnan(z) || z < -1 || z > 1) return std::numeric_limits<double>::quiet_NaN();
    if (z == 1) return std::numeric_limits<double>::infinity();
    if (z == -1) return -std::numeric_limits<double>::infinity();
    if (z == 0) return 0;
    const double p = std::fabs(z);
    const double x = erfinv_nonnegative(p, 1 - p);
    return z < 0 ? -x : x;
}

double erfcinv(double z) {
    if (std::isnan(z) || z < 0 || z > 2) return std::numeric_limits<double>::quiet_NaN();
    if (z == 0) return std::numeric_limits<double>::infinity();
    if (z == 2) return -std::numeric_limits<double>::infinity();
    // erfc(−x) = 2 − erfc(x).
    if (z > 1) return -erfinv_nonnegative(z - 1, 2 - z);
    return erfinv_nonnegative(1 - z, z);
}

}  // namespace mgedump::engine::eval::elemwise
