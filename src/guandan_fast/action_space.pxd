# The fixed abstract action space's numbering, defined once (docs/learning.md, version
# ACTIONS_VERSION): the first id of each block. actions.pyx maps moves to these ids and back;
# movegen_core.pyx writes them beside the compact moves it lists in id order
# (generate_actions), so the action list needs no per-move lookup and no sort.

cdef enum:
    ACTIONS_VERSION = 1
    N_ACTIONS = 501
    A_PASS = 0
    A_SINGLE = 1            # 15: ranks 2..A, B, R
    A_PAIR = 16             # 15
    A_TRIPS = 31            # 13
    A_FULL_HOUSE = 44       # 13 triple ranks x 14 pair ranks (2..A, B, R but the triple's)
    A_STRAIGHT = 226        # 10 windows (low end A, 2, .. T)
    A_THREE_PAIR = 236      # 12 windows (AA2233 .. QQKKAA)
    A_TWO_TRIPS = 248       # 13 windows (AAA222 .. KKKAAA)
    A_BOMB = 261            # 13 ranks x 7 sizes (4..10)
    A_STRAIGHT_FLUSH = 352  # 10 windows x 4 suits
    A_JOKER_BOMB = 392
    A_TRIBUTE = 393         # 54 card kinds
    A_BACK = 447            # 54 card kinds
