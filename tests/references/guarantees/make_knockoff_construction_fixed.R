# Reference fixed-X equicorrelated knockoffs for tests/test_knockoff_construction.py (run by hand).
#
# Sources create_fixed.R and util.R of R's knockoff package (CRAN 'knockoff', the GitHub mirror
# cran/knockoff) from the folder given as the first argument, so that it needs no installed
# package:
#     Rscript tests/references/guarantees/make_knockoff_construction_fixed.R /path/to/knockoff/R
# It writes knockoff_construction_fixed_X.csv (a 24 x 5 design) and
# knockoff_construction_fixed_Xk.csv (create.fixed(X, method = "equi")$Xk, on R's scale: the
# columns of X normalised to unit length, not centred) beside itself.
args <- commandArgs(trailingOnly = TRUE)
source(file.path(args[1], "util.R"))
source(file.path(args[1], "create_fixed.R"))
here <- dirname(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE)))

set.seed(20240601)
n <- 24; p <- 5
X <- matrix(rnorm(n * p), n) %*% chol(0.5 ^ abs(outer(1:p, 1:p, "-"))) + 1
X <- round(X, 6)
result <- create.fixed(X, method = "equi")
write.csv(X, file.path(here, "knockoff_construction_fixed_X.csv"), row.names = FALSE)
write.csv(signif(result$Xk, 15), file.path(here, "knockoff_construction_fixed_Xk.csv"), row.names = FALSE)
