# The Rules dataclass as the compiled core reads it (implemented in rules_core.pyx). Every
# compiled module that takes a Rules cimports rules_to_c from here, not from the Game wrapper.
from guandan_fast.game_core cimport GameRulesC

# The §12 switches of a guandan_fast.Rules as small integers (TypeError for anything else).
cdef GameRulesC rules_to_c(object rules) except *
