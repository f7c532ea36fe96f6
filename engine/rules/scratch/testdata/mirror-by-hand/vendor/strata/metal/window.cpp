// A cut-down copy of fixtures/m5-v3/vendor/strata/metal/window.cpp (a reconstructed, synthetic
// excerpt; see its README): lines 2101-2191, PromptGemm::make, prompt_gemm_init and the planning functions.
PromptGemm *PromptGemm::make(const Params &p, bool measure) {
    // Sizes every buffer a prompt pass of p.C tokens needs and, unless
    // measure is set, carves them out of one transient mapping.
    auto *g = new PromptGemm();
    g->p = p;
    const size_t C = p.C;
    const size_t d = p.n_embd;
    const size_t maxrows = ((C + p.TM - 1) / p.TM) * p.TM;  // p.TM defaults to 16
    size_t off = 0;
    auto take = [&](float *&dst, size_t bytes) {
        dst = measure ? nullptr : reinterpret_cast<float *>(g->base + off);
        off += bytes;
    };
    if (!measure) {
        g->base = static_cast<uint8_t *>(map_transient(p.bytes_hint));
        if (g->base == nullptr) {
            delete g;
            return nullptr;
        }
    }
    take(g->R, C * 4 * d * sizeof(float));    // p.R: residual + 3 work rows per token
    take(g->emb, C * d * sizeof(float));       // p.emb
    const size_t rb = gemm_row_bytes(p);       // per-row GEMM buffers (KV cells, PLE, flash)
    take(g->rows, maxrows * rb);
    g->tm = p.TM;
    g->bytes = off;
    g->measured = measure;
    return g;
}
// [elided: lines 2130-2136 are not quoted by the audit]
//
//
//
//
//
//
void Window::prompt_gemm_init() {
    pg_params_.bytes_hint = pg_scratch_need;
    pg_ = PromptGemm::make(pg_params_, /*measure=*/false);
    if (SEPARATE_PROMPT_BUF != 0) {
        log_info("prompt_gemm_init: %.2f GB scratch in a separate transient mmap while a prompt runs", gb(pg_->bytes));
    } else {
        log_info("prompt_gemm_init: %.2f GB scratch in the expert arena", gb(pg_->bytes));
    }
}
// [elided: lines 2146-2154 are not quoted by the audit]
//
//
//
//
//
//
//
//
// Planning-time size of the prompt-GEMM scratch (arena budget, cap check, plan
// log line), computed before any prompt runs.
size_t Window::prompt_gemm_need_bytes() const {
    const PromptGemm::Params &p = pg_params_;
    const size_t maxrows = ((p.C + 16 - 1) / 16) * 16;
    return prompt_gemm_need_bytes_for(p, maxrows);
}

// Keep in sync with PromptGemm::make().
size_t Window::prompt_gemm_need_bytes_for(const PromptGemm::Params &p, size_t maxrows) const {
    // Same walk as make(), counting instead of carving.
    const size_t C = p.C;
    const size_t d = p.n_embd;
    size_t need = 0;
    auto take = [&](size_t bytes) { need += bytes; };
    take(C * 4 * d * sizeof(float));  // p.R: residual + 3 work rows per token
    take(C * d * sizeof(float));      // p.emb
    const size_t rb = gemm_row_bytes(p);
    take(maxrows * rb);               // rows
    // A chunk shorter than C (the prompt's last) still occupies whole tiles;
    // the planned rows must cover the largest chunk the prefill loop hands
    // to the GEMM.
    const size_t chunk = std::min<size_t>(C, p.max_chunk);
    const size_t chunk_rows = ((chunk + 16 - 1) / 16) * 16;
    if (chunk_rows > maxrows) {
        take((chunk_rows - maxrows) * rb);
    }
    // make() maps this many bytes as one transient region; the plan line and
    // the arena budget both read this value. make() itself is not run here:
    // it would map the region.

    LOG_DEBUG("prompt_gemm_need_bytes: C=%zu rows=%zu row_bytes=%zu need=%zu", C, maxrows, rb, need);
    if (need > max_transient_bytes_) {
        LOG_WARN("prompt_gemm_need_bytes: need %.2f GB above the transient limit", gb(need));
    }
    return need;
}
