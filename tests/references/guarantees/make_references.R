## Reference values for tests/test_guarantee_bounds.py:
##   stabs::stabsel_parameters (stabs 0.6-4) and knockoff::knockoff.threshold (knockoff 0.3.6).
##
## How it was run.  CRAN is unreachable from the machine that made these files, so the two
## packages were not installed: their R sources were taken from the GitHub mirrors of CRAN at
## the commits below and sourced into a plain R session (R 4.2.2):
##
##   git --git-dir=<mirror of github.com/cran/stabs>    show 407e0e9d4e627d50ac028913cceb687fb3f815a6:R/stabsel.R > stabsel.R
##   git --git-dir=<mirror of github.com/cran/stabs>    show 407e0e9d4e627d50ac028913cceb687fb3f815a6:R/helpers.R > helpers.R
##   git --git-dir=<mirror of github.com/cran/knockoff> show 14490c6500bbf8fc5d417c65489f1d97e543f681:R/knockoff_filter.R > knockoff_filter.R
##   Rscript make_references.R <folder holding those three files> <output folder>
##
## (commit 407e0e9 of cran/stabs is "version 0.6-4", DESCRIPTION Version 0.6-4, 2021-01-28;
##  commit 14490c6 of cran/knockoff is "version 0.3.6", DESCRIPTION Version 0.3.6, 2022-08-12.)
## Only stabsel_parameters.default and its helpers (optimal_cutoff, optimal_q, um_const, minD, D,
## maxQ) and knockoff.threshold are used; none of them needs another package.
##
## Output (CSV, numbers with 15 or 17 significant digits, as many as read back exactly;
## an empty field = not given / not returned):
##   stabsel_parameters.csv  one row per call: the arguments given (mode says which one of q,
##                           cutoff, PFER was left out), what R returned (q, cutoff, PFER,
##                           specifiedPFER, assumption) and the unrounded bound for the returned
##                           q and cutoff ("exact": minD * p, q^2 / p / um_const or
##                           q^2 / p / (2 cutoff - 1)), or R's error message.
##   knockoff_W.csv          the statistics W, one vector per id (values separated by ";").
##   knockoff_threshold.csv  knockoff.threshold(W, fdr, offset) for each id, fdr and offset.

args <- commandArgs(trailingOnly = TRUE)
source_dir <- if (length(args) >= 1) args[1] else "."
out_dir <- if (length(args) >= 2) args[2] else "."
source(file.path(source_dir, "stabsel.R"))
source(file.path(source_dir, "helpers.R"))
source(file.path(source_dir, "knockoff_filter.R"))

## the shortest of 15 or 17 significant digits that reads back as the same double
num <- function(x) {
    if (is.null(x) || length(x) == 0 || is.na(x)) return("")
    short <- sprintf("%.15g", x)
    if (as.numeric(short) == x) short else sprintf("%.17g", x)
}
clean <- function(msg) gsub("[\n\",]", " ", gsub("\u2018|\u2019", "'", msg))

exact_bound <- function(res) {
    q <- res$q; p <- res$p; cutoff <- res$cutoff; B <- res$B
    if (res$assumption == "none") return(q^2 / p / (2 * cutoff - 1))
    if (res$assumption == "unimodal") return(q^2 / p / um_const(cutoff, B, theta = q / p))
    minD(q, p, cutoff, B) * p
}

rows <- list()
add_row <- function(mode, p, q, cutoff, PFER, B, sampling, assumption) {
    call_args <- list(p = p, B = B, sampling.type = sampling, assumption = assumption)
    if (mode != "q") call_args$q <- q
    if (mode != "cutoff") call_args$cutoff <- cutoff
    if (mode != "pfer") call_args$PFER <- PFER
    warn <- ""
    res <- withCallingHandlers(
        tryCatch(do.call(stabsel_parameters, call_args), error = function(e) e),
        warning = function(w) { warn <<- paste(warn, clean(conditionMessage(w))); invokeRestart("muffleWarning") })
    given_q <- if (mode != "q") q else NA
    given_cutoff <- if (mode != "cutoff") cutoff else NA
    given_pfer <- if (mode != "pfer") PFER else NA
    if (inherits(res, "error")) {
        out <- c(mode, p, num(given_q), num(given_cutoff), num(given_pfer), B, sampling, assumption,
                 "", "", "", "", "", "", clean(conditionMessage(res)), trimws(warn))
    } else {
        exact <- tryCatch(exact_bound(res), error = function(e) NA)
        out <- c(mode, p, num(given_q), num(given_cutoff), num(given_pfer), B, sampling, assumption,
                 num(res$q), num(res$cutoff), num(res$PFER), num(res$specifiedPFER), res$assumption,
                 num(exact), "", trimws(warn))
    }
    rows[[length(rows) + 1]] <<- out
}

settings <- list(c("SS", "unimodal"), c("SS", "r-concave"), c("SS", "none"), c("MB", "unimodal"))
for (p in c(10, 50, 200, 1000)) {
    qs <- unique(c(1, 2, 5, 10, 20, 50, 100, 300)[c(1, 2, 5, 10, 20, 50, 100, 300) < p])
    qs <- qs[seq_len(min(length(qs), 6))]
    for (setting in settings) {
        sampling <- setting[1]; assumption <- setting[2]
        ## B enters the bound only under "unimodal" and "r-concave" with "SS"
        Bs <- if (sampling == "SS" && assumption != "none") c(50, 100) else 50
        for (B in Bs) {
            for (q in qs) for (cutoff in c(0.6, 0.75, 0.9))
                add_row("pfer", p, q, cutoff, NA, B, sampling, assumption)
            for (q in qs) for (PFER in c(0.5, 1, 2, 5))
                add_row("cutoff", p, q, NA, PFER, B, sampling, assumption)
            for (cutoff in c(0.6, 0.75, 0.9)) for (PFER in c(0.5, 1, 2, 5))
                add_row("q", p, NA, cutoff, PFER, B, sampling, assumption)
        }
    }
}
## corner cases: small B, cutoffs near 1/2 and 1, large q, tiny or huge PFER, the integer root of
## the unimodal q (p = 200, cutoff 0.75, B = 50, PFER = 1: q^2 / 200 / 0.98 = 1 at q = 14)
corner <- list(
    list("pfer", 10, 2, 0.9, NA, 2, "SS", "r-concave"),
    list("pfer", 10, 1, 0.9, NA, 2, "SS", "r-concave"),
    list("pfer", 50, 5, 1, NA, 2, "SS", "r-concave"),
    list("pfer", 50, 5, 0.51, NA, 50, "SS", "unimodal"),
    list("pfer", 1000, 1, 0.505, NA, 50, "SS", "unimodal"),
    list("pfer", 1000, 1, 0.502, NA, 50, "SS", "unimodal"),
    list("pfer", 10, 1, 0.6, NA, 1, "SS", "unimodal"),
    list("pfer", 10, 1, 0.8, NA, 1, "SS", "unimodal"),
    list("pfer", 10, 1, 0.8, NA, 1, "SS", "r-concave"),
    list("pfer", 10, 1, 0.8, NA, 1, "SS", "none"),
    list("pfer", 10, 1, 0.8, NA, 1, "MB", "none"),
    list("pfer", 50, 20, 1, NA, 50, "SS", "unimodal"),
    list("pfer", 50, 30, 0.9, NA, 50, "SS", "r-concave"),
    list("pfer", 50, 45, 0.6, NA, 50, "SS", "unimodal"),
    list("pfer", 50, 49, 1, NA, 50, "SS", "unimodal"),
    list("pfer", 2, 1, 0.9, NA, 50, "SS", "none"),
    list("pfer", 2, 1, 0.9, NA, 50, "SS", "unimodal"),
    list("cutoff", 10, 1, NA, 0.01, 50, "SS", "unimodal"),
    list("cutoff", 10, 1, NA, 0.01, 50, "SS", "r-concave"),
    list("cutoff", 1000, 1, NA, 5, 50, "SS", "r-concave"),
    list("cutoff", 1000, 2, NA, 2, 20, "SS", "r-concave"),
    list("cutoff", 10, 5, NA, 0.1, 50, "SS", "none"),
    list("cutoff", 10, 1, NA, 1, 1, "SS", "unimodal"),
    list("cutoff", 10, 8, NA, 1, 50, "SS", "unimodal"),
    list("cutoff", 200, 10, NA, 1, 2, "SS", "unimodal"),
    list("cutoff", 200, 10, NA, 1, 3, "SS", "r-concave"),
    list("q", 200, NA, 0.75, 1, 50, "SS", "unimodal"),
    list("q", 10, NA, 0.6, 0.01, 50, "SS", "none"),
    list("q", 10, NA, 0.6, 0.01, 50, "SS", "unimodal"),
    list("q", 10, NA, 0.6, 0.01, 50, "SS", "r-concave"),
    list("q", 10, NA, 0.505, 1, 50, "SS", "unimodal"),
    list("q", 10, NA, 0.7, 1, 1, "SS", "unimodal"),
    list("q", 10, NA, 0.9, 1, 1, "SS", "unimodal"),
    list("q", 10, NA, 1, 100, 50, "SS", "unimodal"),
    list("q", 10, NA, 1, 100, 50, "SS", "none"),
    list("q", 10, NA, 1, 100, 50, "SS", "r-concave"),
    list("q", 1000, NA, 0.55, 0.2, 50, "SS", "r-concave"),
    list("q", 50, NA, 0.9, 1, 7, "SS", "r-concave"),
    list("q", 50, NA, 0.9, 1, 7, "SS", "unimodal")
)
for (args_row in corner) do.call(add_row, args_row)

header <- c("mode", "p", "q", "cutoff", "PFER", "B", "sampling", "assumption",
            "out_q", "out_cutoff", "out_PFER", "out_specifiedPFER", "out_assumption", "out_exact",
            "error", "warning")
table <- do.call(rbind, rows)
colnames(table) <- header
write.csv(table, file.path(out_dir, "stabsel_parameters.csv"), row.names = FALSE, quote = FALSE)

## knockoff.threshold ------------------------------------------------------------------------
set.seed(20240607)
vectors <- list()
for (i in 1:8) {  # signals and noise, two decimals (ties happen)
    n <- sample(c(10, 20, 40, 60), 1); k <- sample(2:(n %/% 2), 1)
    vectors[[length(vectors) + 1]] <- round(c(rnorm(k, 3, 1), rnorm(n - k)), 2)
}
for (i in 1:4) {  # strong signals: a finite knockoff+ threshold
    n <- 50; k <- 30
    vectors[[length(vectors) + 1]] <- round(c(abs(rnorm(k, 6, 1)), rnorm(n - k, 0, 0.5)), 2)
}
for (i in 1:4)  # integers: many ties and zeros
    vectors[[length(vectors) + 1]] <- round(rnorm(sample(c(15, 30, 45), 1), 0.5, 2))
vectors[[length(vectors) + 1]] <- -round(abs(rnorm(20)), 2) - 0.01            # all negative
vectors[[length(vectors) + 1]] <- round(abs(rnorm(25)), 2) + 0.01             # all positive
vectors[[length(vectors) + 1]] <- rep(0, 12)                                   # all zero
vectors[[length(vectors) + 1]] <- c(rep(0, 10), round(abs(rnorm(15, 3)), 2))  # zeros and positives
vectors[[length(vectors) + 1]] <- c(5, 4, 3, -3, 2, 2, 2, -2, 1, 0, 0, -1)   # ties across signs
vectors[[length(vectors) + 1]] <- 2.5                                          # one positive
vectors[[length(vectors) + 1]] <- -1                                           # one negative
vectors[[length(vectors) + 1]] <- c(1:40, -(1:3))                             # clear cut
vectors[[length(vectors) + 1]] <- rnorm(30)                                    # full precision
ids <- seq_along(vectors)
W_table <- data.frame(id = ids, W = vapply(vectors, function(w) paste(vapply(w, num, ""), collapse = ";"), ""))
write.csv(W_table, file.path(out_dir, "knockoff_W.csv"), row.names = FALSE, quote = FALSE)

thresholds <- list()
for (id in ids) for (fdr in c(0.05, 0.1, 0.2, 0.3, 0.5)) for (offset in c(0, 1)) {
    t <- knockoff.threshold(vectors[[id]], fdr = fdr, offset = offset)
    thresholds[[length(thresholds) + 1]] <- c(id, num(fdr), offset, if (is.infinite(t)) "Inf" else num(t))
}
threshold_table <- do.call(rbind, thresholds)
colnames(threshold_table) <- c("id", "fdr", "offset", "threshold")
write.csv(threshold_table, file.path(out_dir, "knockoff_threshold.csv"), row.names = FALSE, quote = FALSE)
