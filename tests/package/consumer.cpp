// Builds the spec's Appendix C graph, dumps it in both formats, loads the files back
// and runs a one-job batch, through <mgedump/mgedump.h> alone. Prints one line per
// artifact ("FBS 340 <xxh3-128>") for tools/package_test.sh to compare with the
// installed command line's output; exits 1 on any failed check.
#include <mgedump/mgedump.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: consumer DIR\n");
        return 2;
    }
    const std::filesystem::path dir = std::filesystem::absolute(argv[1]);
    mgedump::GraphBuilder b;
    const mgedump::VarId x = b.input("data", mgedump::DType::of(mgedump::DTypeEnum::Float32), {1, 3});
    const mgedump::VarId c = b.constant<float>({3}, {1, 2, 3}, "const");
    b.output(b.op("Elemwise", {x, c}, {{"mode", "ADD"}}), "out");
    const mgedump::Graph g = b.finish();

    int failures = 0;
    for (mgedump::DumpFormat format : {mgedump::DumpFormat::FBS, mgedump::DumpFormat::FBS_V2}) {
        mgedump::DumpOptions options;
        options.dump_format = format;
        const std::string name = format == mgedump::DumpFormat::FBS ? "FBS" : "FBS_V2";
        const mgedump::DumpResult r = mgedump::dump_to_file(g, options, dir / (name + ".mge"));
        const mgedump::LoadedModel back = mgedump::load(dir / (name + ".mge"));
        if (back.graph.oprs.size() != 3 || r.outputs != std::vector<std::string>{"out"}) ++failures;
        std::printf("%s %llu %s\n", name.c_str(), static_cast<unsigned long long>(r.tot_bytes), r.xxh3_128.c_str());
    }
    try {
        mgedump::DumpOptions bad;
        bad.compat_older_version = "8.14";  // FBS only
        mgedump::dump(g, bad);
        ++failures;
    } catch (const mgedump::OptionError&) {
    }

    std::ofstream(dir / "jobs.jsonl") << "{\"input\": \"" << (dir / "FBS.mge").string()
                                      << "\", \"output\": \"again.mge\"}\n";
    const mgedump::BatchSummary s = mgedump::run_batch(dir / "jobs.jsonl", {.out_dir = dir / "out", .threads = 1});
    if (!s.ok() || s.written != 1 || !std::filesystem::exists(dir / "out" / "again.mge")) ++failures;
    std::printf("batch %llu written, version %s\n", static_cast<unsigned long long>(s.written),
                std::string(mgedump::version()).c_str());
    return failures ? 1 : 0;
}
