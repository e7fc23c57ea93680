# Ctrl-C for long nogil loops (perft, playouts, simulation, benchmark hooks), shared inline.
#
# A loop calls interrupted(&it) once per unit of work; every `every` calls it looks at the
# caller's stop flag (set by another thread, e.g. simulate's pool when the user interrupts)
# and, in the main thread only (the only one Python delivers signals to), takes the GIL for a
# moment to run the signal handlers. When a handler raises (KeyboardInterrupt), the exception
# is left set and `stopped` becomes true: the loop unwinds, the caller discards its partial
# result and, back with the GIL, calls raise_pending() at once.
cdef extern from "Python.h":
    # Declared without an exception clause: the error indicator is left for raise_pending().
    int PyErr_CheckSignals()

cdef extern from *:
    """
    static int gf_err_occurred(void) { return PyErr_Occurred() != NULL; }
    """
    int PyErr_Occurred_bool "gf_err_occurred" ()

cdef struct Interrupt:
    int countdown
    int every          # calls between two checks
    bint main          # the calling thread is the main thread
    bint stopped       # a signal handler raised, or *flag was set
    const volatile unsigned char* flag   # optional stop flag of the caller (NULL: none)

cdef inline void interrupt_init(Interrupt* it, int every, bint main,
                                const volatile unsigned char* flag) noexcept nogil:
    it.every = every
    it.countdown = every
    it.main = main
    it.stopped = False
    it.flag = flag

cdef inline bint interrupt_poll(Interrupt* it) noexcept nogil:
    if it.flag != NULL and it.flag[0]:
        it.stopped = True
    elif it.main:
        with gil:
            if PyErr_CheckSignals() != 0:
                it.stopped = True
    return it.stopped

cdef inline bint interrupted(Interrupt* it) noexcept nogil:
    it.countdown -= 1
    if it.countdown > 0:
        return it.stopped
    it.countdown = it.every
    return interrupt_poll(it)

cdef extern from "Python.h":
    int _PyOS_IsMainThread()

cdef inline bint in_main_thread() noexcept:
    """Is the caller the main thread (where signal handlers run)? Call with the GIL."""
    return _PyOS_IsMainThread() != 0

cdef inline int raise_pending(const Interrupt* it) except -1:
    """After a loop stopped by interrupted(): raise what the signal handler raised (left
    set), or KeyboardInterrupt when the caller's stop flag ended the loop."""
    if PyErr_Occurred_bool():
        return -1
    raise KeyboardInterrupt("stopped")
