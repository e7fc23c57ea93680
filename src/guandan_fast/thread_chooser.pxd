# The thread count's choice of an adapting VecEnv (thread_chooser.pyx): the state one env
# keeps, and the calls its step makes.

cdef enum:
    CH_KEEP = 64              # step times kept for a mean or a median

cdef struct Chooser:
    int threads               # the most threads (> 1 when adapting)
    int adapt
    int mode                  # the count the steps run on: 1 or threads
    int stage                 # CH_RUN or CH_PROBE
    # between probes
    double until              # region seconds on mode until the next probe
    double gap                # the gap after the next probe that keeps the count
    double since              # region seconds since the last probe ended
    double run_sum            # the current block of steps (CH_BLOCK_US)
    int run_n
    double run_mean           # mean step of the last block (s), 0 before the first
    double run_cap            # the most a step counts for in a block (s; CH_CAP)
    double ref_mean           # mode's mean step at the last probe (s), 0 before the first
    int jumped                # the last block was 1.6x off ref_mean
    double ring[CH_KEEP]      # the last steps on mode
    int ring_i, ring_n
    # a probe
    int unit                  # steps of a unit
    double cap                # the most a step counts for (s)
    int on_other              # the current block runs on the other count
    int blen, n               # the current block's steps, and how many have run
    double settle             # time (s) of steps still not counted after a change of count
    bint first                # the next step is the first after a change (never counted)
    double stall_dt           # a step this long just after a change is a stall: counted
    int other_blocks          # blocks on the other count finished
    double sum_mode, sum_other
    int n_mode, n_other
    double at[CH_KEEP]        # the current (or last) block on mode
    int at_n
    double ot[CH_KEEP]        # the first steps on the other count
    int ot_n
    int probes, switches      # counts, for the curious (ThreadChooser)

cdef void chooser_init(Chooser* ch, int threads, bint adapt) noexcept nogil
cdef int chooser_next(const Chooser* ch) noexcept nogil
cdef void chooser_record(Chooser* ch, int nt, double dt) noexcept nogil
