// Yardstick for the RTL bench's speed: a plain C++ loop that clocks the same verilated NV_nvdla-like
// model through the same compiled job (written as a flat command file by benchmarks/rtl_yardstick.py)
// and prints the cycles it simulated per second. Not a product feature: it checks nothing but the
// CRCs of the regions the job reads back (printed for the Python side to compare).
//
// Per cycle: clock low and eval (outputs settle), sample every handshake that the next rising edge
// will complete, clock high and eval, then update the memory model, the CSB master and the inputs.
// AXI: one 64-bit data port (nv_small's DBB), always ready, responses in order.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "Vtop.h"
#include "verilated.h"

namespace {

constexpr uint32_t kIntrStatus = 0x100c;
constexpr int kPollCycles = 256;

struct Memory {
    std::map<uint64_t, std::vector<uint8_t>> pages;  // 4 KiB pages
    uint8_t& at(uint64_t addr) {
        auto& page = pages[addr >> 12];
        if (page.empty()) page.resize(4096);
        return page[addr & 4095];
    }
    uint64_t word(uint64_t addr) {
        uint64_t value = 0;
        for (int i = 7; i >= 0; --i) value = (value << 8) | at(addr + i);
        return value;
    }
    void write_word(uint64_t addr, uint64_t data, uint32_t strb) {
        for (int i = 0; i < 8; ++i)
            if (strb & (1u << i)) at(addr + i) = static_cast<uint8_t>(data >> (8 * i));
    }
};

uint32_t crc32(Memory& mem, uint64_t base, uint64_t size) {
    uint32_t crc = 0xffffffffu;
    for (uint64_t i = 0; i < size; ++i) {
        crc ^= mem.at(base + i);
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

struct Burst { uint64_t addr; uint32_t beats; uint32_t id; };

struct Command { std::string op; uint64_t a = 0, b = 0, c = 0, d = 0; std::string text; };

class Yardstick {
public:
    explicit Yardstick(VerilatedContext* context) : top(new Vtop(context)) {}

    void tick() {
        top->dla_core_clk = 0;
        top->dla_csb_clk = 0;
        top->eval();
        // handshakes completed by the coming rising edge
        const bool aw = top->nvdla_core2dbb_aw_awvalid && top->nvdla_core2dbb_aw_awready;
        const bool w = top->nvdla_core2dbb_w_wvalid && top->nvdla_core2dbb_w_wready;
        const bool ar = top->nvdla_core2dbb_ar_arvalid && top->nvdla_core2dbb_ar_arready;
        const bool r = top->nvdla_core2dbb_r_rvalid && top->nvdla_core2dbb_r_rready;
        const bool b = top->nvdla_core2dbb_b_bvalid && top->nvdla_core2dbb_b_bready;
        csb_taken = top->csb2nvdla_valid && top->csb2nvdla_ready;
        csb_response = top->nvdla2csb_valid;
        csb_data = top->nvdla2csb_data;
        if (aw) writes.push_back({top->nvdla_core2dbb_aw_awaddr, top->nvdla_core2dbb_aw_awlen + 1u,
                                  top->nvdla_core2dbb_aw_awid});
        if (w) {
            Burst& burst = writes.front();
            mem.write_word(burst.addr, top->nvdla_core2dbb_w_wdata, top->nvdla_core2dbb_w_wstrb);
            burst.addr += 8;
            if (--burst.beats == 0) { write_done.push_back(burst.id); writes.pop_front(); }
        }
        if (ar) reads.push_back({top->nvdla_core2dbb_ar_araddr, top->nvdla_core2dbb_ar_arlen + 1u,
                                 top->nvdla_core2dbb_ar_arid});
        if (r) {
            Burst& burst = reads.front();
            burst.addr += 8;
            if (--burst.beats == 0) reads.pop_front();
        }
        if (b) write_done.pop_front();
        top->dla_core_clk = 1;
        top->dla_csb_clk = 1;
        top->eval();
        ++cycles;
        // inputs for the next cycle, driven after the edge
        top->nvdla_core2dbb_aw_awready = 1;
        top->nvdla_core2dbb_w_wready = !writes.empty();
        top->nvdla_core2dbb_ar_arready = 1;
        top->nvdla_core2dbb_r_rvalid = !reads.empty();
        if (!reads.empty()) {
            top->nvdla_core2dbb_r_rdata = mem.word(reads.front().addr);
            top->nvdla_core2dbb_r_rid = reads.front().id;
            top->nvdla_core2dbb_r_rlast = reads.front().beats == 1;
        }
        top->nvdla_core2dbb_b_bvalid = !write_done.empty();
        if (!write_done.empty()) top->nvdla_core2dbb_b_bid = write_done.front();
        if (csb_taken) top->csb2nvdla_valid = 0;
    }

    void reset(int idle) {
        top->global_clk_ovr_on = 0;
        top->tmc2slcg_disable_clock_gating = 0;
        top->test_mode = 0;
        top->csb2nvdla_valid = 0;
        top->dla_reset_rstn = 0;
        top->direct_reset_ = 0;
        for (int i = 0; i < 20; ++i) tick();
        top->dla_reset_rstn = 1;
        top->direct_reset_ = 1;
        for (int i = 0; i < idle; ++i) tick();
    }

    uint32_t csb(uint32_t byte_addr, uint32_t data, bool write) {
        top->csb2nvdla_addr = byte_addr >> 2;
        top->csb2nvdla_wdat = data;
        top->csb2nvdla_write = write;
        top->csb2nvdla_nposted = 0;
        top->csb2nvdla_valid = 1;
        do tick(); while (!csb_taken);
        if (write) return 0;
        for (int i = 0; i < 1000; ++i) {
            tick();
            if (csb_response) return csb_data;
        }
        std::fprintf(stderr, "yardstick: no CSB response to read %#x\n", byte_addr);
        std::exit(2);
    }

    // intr_notify bits watched per sync name; a wait services GLB interrupts until its sync fired
    void await_sync(const std::string& sync, uint64_t budget) {
        uint64_t waited = 0;
        for (;;) {
            const uint32_t status = csb(kIntrStatus, 0, false);
            for (auto it = watches.begin(); it != watches.end();) {
                if (status & (1u << it->first)) {
                    csb(kIntrStatus, 1u << it->first, true);
                    fired.push_back(it->second);
                    it = watches.erase(it);
                } else {
                    ++it;
                }
            }
            if (done(sync)) return;
            if (waited > budget) {
                std::fprintf(stderr, "yardstick: no interrupt for %s within %llu cycles\n", sync.c_str(),
                             static_cast<unsigned long long>(budget));
                std::exit(3);
            }
            for (int i = 0; i < kPollCycles && !top->dla_intr; ++i) tick();
            waited += kPollCycles;
        }
    }

    bool done(const std::string& sync) const {
        if (sync.empty() || sync == "*") return watches.empty();
        for (const auto& watch : watches)
            if (watch.second == sync) return false;
        return true;
    }

    std::unique_ptr<Vtop> top;
    Memory mem;
    std::deque<Burst> writes, reads;
    std::deque<uint32_t> write_done;
    std::vector<std::pair<int, std::string>> watches;
    std::vector<std::string> fired;
    bool csb_taken = false, csb_response = false;
    uint32_t csb_data = 0;
    uint64_t cycles = 0;
};

std::vector<Command> read_commands(const char* path) {
    std::ifstream in(path);
    std::vector<Command> commands;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        Command c;
        fields >> c.op;
        if (c.op == "load") fields >> c.a >> c.text;
        else if (c.op == "watch") fields >> c.a >> c.text;
        else if (c.op == "await") fields >> c.text;
        else if (c.op == "check") fields >> c.a >> c.b >> c.text;
        else fields >> c.a >> c.b >> c.c >> c.d;
        if (c.op == "await" || c.op == "check") {
            if (c.text == "-") c.text.clear();
        }
        commands.push_back(c);
    }
    return commands;
}

}  // namespace

// usage: yardstick COMMANDS IDLE_CYCLES BUDGET_CYCLES
int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s COMMANDS IDLE_CYCLES BUDGET_CYCLES\n", argv[0]);
        return 1;
    }
    auto context = std::make_unique<VerilatedContext>();
    context->commandArgs(argc, argv);  // the RTL asks for plusargs
    Yardstick bench(context.get());
    const auto commands = read_commands(argv[1]);
    const int idle = std::atoi(argv[2]);
    const uint64_t budget = std::strtoull(argv[3], nullptr, 10);
    const auto started = std::chrono::steady_clock::now();
    bench.reset(idle);
    for (const auto& c : commands) {
        if (c.op == "write") {
            bench.csb(static_cast<uint32_t>(c.a), static_cast<uint32_t>(c.b), true);
        } else if (c.op == "read") {  // addr expected mask poll
            for (;;) {
                const uint32_t value = bench.csb(static_cast<uint32_t>(c.a), 0, false);
                if (!c.d || !((value ^ c.b) & c.c)) break;
                for (int i = 0; i < kPollCycles; ++i) bench.tick();
            }
        } else if (c.op == "load") {
            std::ifstream blob(c.text, std::ios::binary);
            std::vector<char> data((std::istreambuf_iterator<char>(blob)), std::istreambuf_iterator<char>());
            for (size_t i = 0; i < data.size(); ++i) bench.mem.at(c.a + i) = static_cast<uint8_t>(data[i]);
        } else if (c.op == "watch") {
            bench.watches.emplace_back(static_cast<int>(c.a), c.text);
        } else if (c.op == "await") {
            bench.await_sync(c.text, budget);
        } else if (c.op == "check") {
            bench.await_sync(c.text, budget);
            std::printf("crc %llx %llx %08x\n", static_cast<unsigned long long>(c.a),
                        static_cast<unsigned long long>(c.b), crc32(bench.mem, c.a, c.b));
        }
    }
    bench.await_sync("*", budget);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    bench.top->final();
    std::printf("cycles %llu seconds %.6f cycles_per_s %.0f\n", static_cast<unsigned long long>(bench.cycles),
                seconds, bench.cycles / seconds);
    return 0;
}
