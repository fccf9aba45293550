"""gen_fortran_f90.py: the Fortran sources of the bindings (mpif.h, module
mpi, module mpi_f08) and the names list of the constants program, for
gen_fortran.py.
"""
import re

from gen_fortran_model import Fail, write
from gen_fortran_glue import f08_by_value

# ---- Fortran interfaces -------------------------------------------------

def ftype(a, f08):
    """Type declaration of dummy a (without the name)."""
    k = a.kind
    intent = {'in': 'INTENT(IN)', 'out': 'INTENT(OUT)', 'inout': 'INTENT(INOUT)'}[a.intent]
    def integer():
        return 'INTEGER(KIND=%s)' % a.fkind if a.fkind else 'INTEGER'
    if k in ('int_in', 'int_out', 'index_out'):
        return '%s, %s' % (integer(), intent), ''
    if k == 'real_in':
        return 'DOUBLE PRECISION, %s' % intent, ''
    if k in ('logical_in', 'logical_out'):
        return 'LOGICAL, %s' % intent, ''
    if k == 'weights' and a.intent != 'in':
        # No INTENT: MPI_UNWEIGHTED, a protected module variable, may be
        # passed to MPI_DIST_GRAPH_NEIGHBORS (MPI 4.1 declares it so too).
        return integer(), '(*)'
    if k in ('int_arr', 'index_arr', 'weights'):
        dims = '(3,*)' if a.dims == '[][3]' else '(*)'
        return '%s, %s' % (integer(), intent), dims
    if k == 'logical_arr':
        return 'LOGICAL, %s' % intent, '(*)'
    if k in ('handle_in', 'handle_out'):
        return ('TYPE(%s), %s' % (a.ctype, intent) if f08 else 'INTEGER, %s' % intent), ''
    if k == 'handle_arr':
        return ('TYPE(%s), %s' % (a.ctype, intent) if f08 else 'INTEGER, %s' % intent), '(*)'
    if k in ('status_in', 'status_out', 'status_inout'):
        if f08:
            return 'TYPE(MPI_Status), %s' % intent, ''
        return 'INTEGER, %s' % intent, '(MPI_STATUS_SIZE)'
    if k == 'status_arr':
        if f08:
            return 'TYPE(MPI_Status), %s' % intent, '(*)'
        return 'INTEGER, %s' % intent, '(MPI_STATUS_SIZE,*)'
    if k == 'fstatus':
        return 'INTEGER, %s' % intent, '(MPI_STATUS_SIZE)'
    if k == 'f08status':
        return 'TYPE(MPI_Status), %s' % intent, ''
    if k in ('choice', 'address'):
        if f08:
            extra = ', INTENT(IN)' if a.const and k == 'choice' else ''
            return 'TYPE(*), DIMENSION(..)%s' % extra, ''
        return 'TYPE(*)', '(*)'
    if k == 'baseptr':
        if f08:
            return 'TYPE(C_PTR), INTENT(OUT)', ''
        return 'TYPE(*)', ''
    if k in ('attr_in', 'attr_out', 'extra'):
        return '%s, %s' % (integer(), intent), ''
    if k in ('str_in', 'str_out'):
        return 'CHARACTER(LEN=*), %s' % intent, ''
    if k == 'str_arr_in':
        return 'CHARACTER(LEN=*), %s' % intent, '(*)'
    if k == 'str_arr2_in':
        return 'CHARACTER(LEN=*), %s' % intent, '(count,*)'
    if k == 'callback':
        # MPI_Copy_function and MPI_Delete_function (MPI_KEYVAL_CREATE's)
        # stay EXTERNAL in mpi_f08 too: MPI-1 code passes the MPI-2
        # predefined procedures (MPI_COMM_NULL_COPY_FN ...) to it, whose
        # interfaces differ in the value kind (MPICH's own tests do).
        loose = a.cb in ('MPI_Copy_function', 'MPI_Delete_function')
        return ('PROCEDURE(%s)' % a.cb if f08 and not loose else 'EXTERNAL'), ''
    raise Fail('no Fortran type for kind %s' % k)


def fargs(fn):
    return [a for a in fn.args if a.kind != 'argv']


def wrap(line, indent):
    """Free-form line of at most 100 characters, continued with &."""
    out = []
    while len(line) > 100:
        cut = line.rfind(', ', 0, 96)
        if cut < 0:
            break
        out.append(line[:cut + 1] + ' &')
        line = indent + '    ' + line[cut + 2:]
    out.append(line)
    return out


def interface_body(fn, f08, specific, bindc, async_, indent):
    """One interface body (subroutine or function) for module mpi or mpi_f08."""
    args = fargs(fn)
    names = [a.name for a in args]
    if fn.ret == 'int':
        names.append('ierror')
    head = 'SUBROUTINE' if fn.ret == 'int' else {
        'double': 'DOUBLE PRECISION FUNCTION',
        'MPI_Aint': 'INTEGER(KIND=MPI_ADDRESS_KIND) FUNCTION'}[fn.ret]
    suffix = ' BIND(C, NAME="%s")' % bindc if bindc else ''
    lines = wrap('%s%s %s(%s)%s' % (indent, head, specific, ', '.join(names), suffix), indent)
    lines.append(indent + '  IMPORT')
    nocheck = []
    for a in args:
        t, dims = ftype(a, f08)
        if not f08 and a.kind in ('choice', 'address', 'baseptr'):
            nocheck.append(a.name)
        if f08 and async_ and a.kind == 'choice':
            t += ', ASYNCHRONOUS'
        if fn.ret != 'int' and bindc:
            t = t.replace('INTENT(IN)', 'VALUE, INTENT(IN)')
        elif f08 and specific.endswith('_f08ts') and f08_by_value(fn, a):
            # Read-only scalar integers and handles of the generated glue go
            # by value (gen_fortran_glue.py f08_by_value says why); users
            # call exactly as with INTENT(IN) alone.
            t = t.replace('INTENT(IN)', 'VALUE, INTENT(IN)')
        lines += wrap('%s  %s :: %s%s' % (indent, t, a.name, dims), indent)
    for n in nocheck:
        lines.append('%s  !GCC$ ATTRIBUTES NO_ARG_CHECK :: %s' % (indent, n))
    if fn.ret == 'int':
        if f08:
            lines.append(indent + '  INTEGER, OPTIONAL, INTENT(OUT) :: ierror')
        else:
            lines.append(indent + '  INTEGER, INTENT(OUT) :: ierror')
    lines.append('%sEND %s %s' % (indent, 'SUBROUTINE' if fn.ret == 'int' else 'FUNCTION',
                                  specific))
    return lines


# Byte sizes of the integer kinds (from fconst.txt): two specifics whose
# dummies differ only in a kind name of the same size are ambiguous.
KIND_BYTES = {}


def tkr_sig(fn):
    sig = []
    for a in fargs(fn):
        if a.kind == 'callback':
            continue
        t, d = ftype(a, True)
        t = t.split(',')[0]
        for k, v in KIND_BYTES.items():
            t = t.replace(k, str(v))
        sig.append((t, d))
    return sig


def module_interfaces(fns, f08):
    """Generic interfaces of every bound function; the large-count _c form is
    a second specific of the same generic in mpi_f08 (MPI 4.1 section 19.2).
    zmpi's extensions are named ZMPI_ and PZMPI_ instead."""
    by_name = {fn.name: fn for fn in fns if not fn.reason and fn.prefix == 'MPI'}
    out = []
    for profiling in ('', 'P'):
        for fn in fns:
            if fn.reason:
                continue
            prefix = '%s%s_' % (profiling, fn.prefix)
            large = (fn.prefix == 'MPI' and fn.name.endswith('_c') and
                     fn.name[:-2] in by_name)
            if fn.name.endswith('_c') and not f08:
                continue
            if not f08 and any(a.kind == 'f08status' for a in fn.args):
                continue  # TYPE(MPI_Status) exists in mpi_f08 only
            if large and tkr_sig(fn) != tkr_sig(by_name[fn.name[:-2]]):
                continue  # emitted under its base name
            specifics = [fn]
            base = fn.name
            big = by_name.get(fn.name + '_c') if fn.prefix == 'MPI' else None
            if f08 and big and tkr_sig(big) != tkr_sig(fn):
                specifics.append(big)
            # In module mpi each name has one specific, declared in a plain
            # (not generic) interface block: Fortran's sequence association
            # then applies as with mpif.h (an array element or a rank-2
            # array of statuses passed where an array is expected), which a
            # generic's resolution by type, kind and rank would reject,
            # while argument counts and types are still checked.
            out.append('  INTERFACE %s%s' % (prefix, base) if f08 else '  INTERFACE')
            for s in specifics:
                async_ = s.is_async()
                if fn.ret != 'int' and f08:
                    spec, bindc = '%s%s_f08' % (prefix, s.name), '%s%s' % (prefix, s.name)
                elif f08 and s.has_choice():
                    spec = '%s%s_f08ts' % (prefix, s.name)
                    bindc = spec
                elif f08 and s.name in ('Buffer_detach', 'Comm_detach_buffer',
                                       'Session_detach_buffer'):
                    spec = bindc = '%s%s_f08' % (prefix, s.name)
                else:
                    spec, bindc = '%s%s' % (prefix, s.name), None
                out += interface_body(s, f08, spec, bindc, async_, '    ')
            out.append('  END INTERFACE')
    return out


# ---- Constants ----------------------------------------------------------

# Sentinels: Fortran objects whose addresses the glue recognises.  Order and
# sizes are those of struct zf_sentinels in zf.h (the mpif.h COMMON block).
SENTINELS = [('MPI_BOTTOM', ''), ('MPI_IN_PLACE', ''), ('MPI_BUFFER_AUTOMATIC', ''),
             ('MPI_STATUS_IGNORE', '(MPI_STATUS_SIZE)'),
             ('MPI_STATUSES_IGNORE', '(MPI_STATUS_SIZE,1)'),
             ('MPI_ERRCODES_IGNORE', '(1)'), ('MPI_UNWEIGHTED', '(1)'),
             ('MPI_WEIGHTS_EMPTY', '(1)')]
# The choice-buffer sentinels of mpi_f08 are arrays of one element of a
# derived type of their own (zmpi_sentinel, one C int like the C
# definitions in zf_util.c): passed to a TYPE(*), DIMENSION(..) dummy their
# descriptor says rank 1 and CFI_type_struct, which the glue's fast paths
# test instead of comparing addresses (zf_cdesc_plain): a scalar, never a
# sentinel, needs only its rank tested; a rank-1 structure takes the
# general path, which recognises the sentinels by address.
F08_CHOICE_SENTINELS = ('MPI_BOTTOM', 'MPI_IN_PLACE', 'MPI_BUFFER_AUTOMATIC')
# Constants the mpi.h macros cannot give (they describe the binding).
# mpi_f08's choice buffers are TYPE(*), DIMENSION(..): the glue describes
# any array section by a datatype, blocking or not (docs/fortran.md), so
# MPI_SUBARRAYS_SUPPORTED is .TRUE. there.  mpif.h and module mpi pass a
# buffer as an address without a descriptor (a section arrives as
# gfortran's contiguous copy, which a nonblocking call must not be given):
# .FALSE. there (MPI 4.1 sections 19.1.2 and 19.1.6: each binding has its
# own value).
# gfortran's ASYNCHRONOUS does not keep the optimizer from moving accesses
# across a nonblocking call's completion, hence .FALSE. too (programs use
# MPI_F_SYNC_REG, as the standard describes for that case).
FORTRAN_EXTRA = {
    'mpif': [('LOGICAL', 'MPI_SUBARRAYS_SUPPORTED', '.FALSE.'),
             ('LOGICAL', 'MPI_ASYNC_PROTECTS_NONBLOCKING', '.FALSE.')],
    'mpi': [('LOGICAL', 'MPI_SUBARRAYS_SUPPORTED', '.FALSE.'),
            ('LOGICAL', 'MPI_ASYNC_PROTECTS_NONBLOCKING', '.FALSE.')],
    'f08': [('LOGICAL', 'MPI_SUBARRAYS_SUPPORTED', '.TRUE.'),
            ('LOGICAL', 'MPI_ASYNC_PROTECTS_NONBLOCKING', '.FALSE.')],
}
# Predefined callbacks: procedures in libzmpi_fortran.
PREDEF_CALLBACKS = [
    ('MPI_COMM_NULL_COPY_FN', 'MPI_Comm_copy_attr_function'),
    ('MPI_COMM_DUP_FN', 'MPI_Comm_copy_attr_function'),
    ('MPI_COMM_NULL_DELETE_FN', 'MPI_Comm_delete_attr_function'),
    ('MPI_TYPE_NULL_COPY_FN', 'MPI_Type_copy_attr_function'),
    ('MPI_TYPE_DUP_FN', 'MPI_Type_copy_attr_function'),
    ('MPI_TYPE_NULL_DELETE_FN', 'MPI_Type_delete_attr_function'),
    ('MPI_WIN_NULL_COPY_FN', 'MPI_Win_copy_attr_function'),
    ('MPI_WIN_DUP_FN', 'MPI_Win_copy_attr_function'),
    ('MPI_WIN_NULL_DELETE_FN', 'MPI_Win_delete_attr_function'),
    ('MPI_NULL_COPY_FN', 'MPI_Copy_function'),
    ('MPI_DUP_FN', 'MPI_Copy_function'),
    ('MPI_NULL_DELETE_FN', 'MPI_Delete_function'),
    ('MPI_CONVERSION_FN_NULL', 'MPI_Datarep_conversion_function'),
]
# mpi_f08 also has MPI_CONVERSION_FN_NULL_C, for MPI_REGISTER_DATAREP_C.


def read_consts(path):
    """fconst.txt: lines 'INT name value', 'HANDLE Type name value', 'KIND name n'."""
    consts = []
    for line in open(path):
        f = line.split()
        if not f:
            continue
        consts.append(f)
    return consts


def gen_mpif(consts, fns, path):
    L = ['! mpif.h: the Fortran 77 style interface of zmpi (deprecated by MPI 4.1,',
         '! still common).  DO NOT EDIT: generated by scripts/gen_fortran.py; the',
         '! values come from the C library (src/bindings/fortran/fconst.c).',
         '! Written to compile as fixed and free form source.']
    def decl(t, n, v):
        L.append('      %s %s' % (t, n))
        L.append('      PARAMETER (%s=%s)' % (n, v))
    for c in consts:
        if c[0] == 'KIND':
            decl('INTEGER', c[1], c[2])
    for c in consts:
        if c[0] == 'INT':
            if len(c[1]) + len(c[2]) > 50:
                continue
            decl(OFFSET_CONSTS.get(c[1], 'INTEGER'), c[1], c[2])
        elif c[0] == 'HANDLE':
            decl('INTEGER', c[2], c[3])
        elif c[0] == 'LONG':
            decl('INTEGER(KIND=MPI_ADDRESS_KIND)', c[1], c[2])
    for t, n, v in FORTRAN_EXTRA['mpif']:
        decl(t, n, v)
    for n, dims in SENTINELS:
        L.append('      INTEGER %s%s' % (n, dims))
        L.append('      COMMON /ZMPI_FSENT/ %s' % n)
    L.append('      SAVE /ZMPI_FSENT/')
    L.append('      CHARACTER*1 MPI_ARGV_NULL(1)')
    L.append('      CHARACTER*1 MPI_ARGVS_NULL(1,1)')
    L.append('      COMMON /ZMPI_FSENTC/ MPI_ARGV_NULL, MPI_ARGVS_NULL')
    L.append('      SAVE /ZMPI_FSENTC/')
    for n, _ in PREDEF_CALLBACKS:
        L.append('      EXTERNAL %s' % n)
    for fn in fns:
        if fn.reason or fn.ret == 'int' or fn.name.endswith('_c'):
            continue
        t = 'DOUBLE PRECISION' if fn.ret == 'double' else 'INTEGER(KIND=MPI_ADDRESS_KIND)'
        for p in ('MPI_', 'PMPI_'):
            L.append('      %s %s%s' % (t, p, fn.name.upper()))
            L.append('      EXTERNAL %s%s' % (p, fn.name.upper()))
    for line in L:
        if not line.startswith('!') and len(line) > 72:
            raise Fail('mpif.h line longer than 72 columns: %s' % line)
    write(path, '\n'.join(L) + '\n')


# Constants that are ints in C but offsets in Fortran (MPI 4.1 appendix
# A.1.1): they are passed where INTEGER(KIND=MPI_OFFSET_KIND) is expected.
OFFSET_CONSTS = {'MPI_DISPLACEMENT_CURRENT': 'INTEGER(KIND=MPI_OFFSET_KIND)'}


def const_lines(consts, f08):
    L = []
    for c in consts:
        if c[0] == 'KIND':
            L.append('  INTEGER, PARAMETER :: %s = %s' % (c[1], c[2]))
    for c in consts:
        if c[0] == 'INT':
            L.append('  %s, PARAMETER :: %s = %s'
                     % (OFFSET_CONSTS.get(c[1], 'INTEGER'), c[1], c[2]))
        elif c[0] == 'LONG':
            L.append('  INTEGER(KIND=MPI_ADDRESS_KIND), PARAMETER :: %s = %s' % (c[1], c[2]))
        elif c[0] == 'HANDLE':
            if f08:
                L.append('  TYPE(%s), PARAMETER :: %s = %s(%s)' % (c[1], c[2], c[1], c[3]))
            else:
                L.append('  INTEGER, PARAMETER :: %s = %s' % (c[2], c[3]))
    for t, n, v in FORTRAN_EXTRA['f08' if f08 else 'mpi']:
        L.append('  %s, PARAMETER :: %s = %s' % (t, n, v))
    return L


def sentinel_lines(f08):
    pre = 'zmpi_f08s_' if f08 else 'zmpi_mpi_'
    L = []
    for n, dims in SENTINELS:
        if f08 and n == 'MPI_STATUS_IGNORE':
            L.append('  TYPE(MPI_Status), BIND(C, NAME="%sstatus_ignore") :: MPI_STATUS_IGNORE'
                     % pre)
        elif f08 and n == 'MPI_STATUSES_IGNORE':
            L.append('  TYPE(MPI_Status), BIND(C, NAME="%sstatuses_ignore") :: '
                     'MPI_STATUSES_IGNORE(1)' % pre)
        elif f08 and n in F08_CHOICE_SENTINELS:
            L.append('  TYPE(zmpi_sentinel), BIND(C, NAME="%s%s") :: %s(1)'
                     % (pre, n[4:].lower(), n))
        else:
            L.append('  INTEGER(C_INT), BIND(C, NAME="%s%s") :: %s%s'
                     % (pre, n[4:].lower(), n, dims))
    L.append('  CHARACTER(KIND=C_CHAR), BIND(C, NAME="%sargv_null") :: MPI_ARGV_NULL(1)' % pre)
    L.append('  CHARACTER(KIND=C_CHAR), BIND(C, NAME="%sargvs_null") :: MPI_ARGVS_NULL(1,1)'
             % pre)
    # The IGNORE sentinels are passed for INTENT(OUT) dummies, which a
    # PROTECTED variable cannot be.
    L += wrap('  PROTECTED :: ' + ', '.join([n for n, _ in SENTINELS if 'IGNORE' not in n] +
                                           ['MPI_ARGV_NULL', 'MPI_ARGVS_NULL']), '  ')
    return L


F08_ABSTRACT = '''
  ABSTRACT INTERFACE
    SUBROUTINE MPI_User_function(invec, inoutvec, len, datatype)
      IMPORT
      TYPE(C_PTR), VALUE :: invec, inoutvec
      INTEGER :: len
      TYPE(MPI_Datatype) :: datatype
    END SUBROUTINE
    SUBROUTINE MPI_User_function_c(invec, inoutvec, len, datatype)
      IMPORT
      TYPE(C_PTR), VALUE :: invec, inoutvec
      INTEGER(KIND=MPI_COUNT_KIND) :: len
      TYPE(MPI_Datatype) :: datatype
    END SUBROUTINE
    SUBROUTINE MPI_Comm_errhandler_function(comm, error_code)
      IMPORT
      TYPE(MPI_Comm) :: comm
      INTEGER :: error_code
    END SUBROUTINE
    SUBROUTINE MPI_Win_errhandler_function(win, error_code)
      IMPORT
      TYPE(MPI_Win) :: win
      INTEGER :: error_code
    END SUBROUTINE
    SUBROUTINE MPI_File_errhandler_function(file, error_code)
      IMPORT
      TYPE(MPI_File) :: file
      INTEGER :: error_code
    END SUBROUTINE
    SUBROUTINE MPI_Session_errhandler_function(session, error_code)
      IMPORT
      TYPE(MPI_Session) :: session
      INTEGER :: error_code
    END SUBROUTINE
    SUBROUTINE MPI_Comm_copy_attr_function(oldcomm, comm_keyval, extra_state, &
        attribute_val_in, attribute_val_out, flag, ierror)
      IMPORT
      TYPE(MPI_Comm) :: oldcomm
      INTEGER :: comm_keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      LOGICAL :: flag
    END SUBROUTINE
    SUBROUTINE MPI_Comm_delete_attr_function(comm, comm_keyval, attribute_val, &
        extra_state, ierror)
      IMPORT
      TYPE(MPI_Comm) :: comm
      INTEGER :: comm_keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    END SUBROUTINE
    SUBROUTINE MPI_Type_copy_attr_function(oldtype, type_keyval, extra_state, &
        attribute_val_in, attribute_val_out, flag, ierror)
      IMPORT
      TYPE(MPI_Datatype) :: oldtype
      INTEGER :: type_keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      LOGICAL :: flag
    END SUBROUTINE
    SUBROUTINE MPI_Type_delete_attr_function(datatype, type_keyval, attribute_val, &
        extra_state, ierror)
      IMPORT
      TYPE(MPI_Datatype) :: datatype
      INTEGER :: type_keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    END SUBROUTINE
    SUBROUTINE MPI_Win_copy_attr_function(oldwin, win_keyval, extra_state, &
        attribute_val_in, attribute_val_out, flag, ierror)
      IMPORT
      TYPE(MPI_Win) :: oldwin
      INTEGER :: win_keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      LOGICAL :: flag
    END SUBROUTINE
    SUBROUTINE MPI_Win_delete_attr_function(win, win_keyval, attribute_val, &
        extra_state, ierror)
      IMPORT
      TYPE(MPI_Win) :: win
      INTEGER :: win_keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    END SUBROUTINE
    SUBROUTINE MPI_Copy_function(oldcomm, keyval, extra_state, attribute_val_in, &
        attribute_val_out, flag, ierror)
      IMPORT
      TYPE(MPI_Comm) :: oldcomm
      INTEGER :: keyval, extra_state, attribute_val_in, attribute_val_out, ierror
      LOGICAL :: flag
    END SUBROUTINE
    SUBROUTINE MPI_Delete_function(comm, keyval, attribute_val, extra_state, ierror)
      IMPORT
      TYPE(MPI_Comm) :: comm
      INTEGER :: keyval, attribute_val, extra_state, ierror
    END SUBROUTINE
    SUBROUTINE MPI_Grequest_query_function(extra_state, status, ierror)
      IMPORT
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
      TYPE(MPI_Status) :: status
      INTEGER :: ierror
    END SUBROUTINE
    SUBROUTINE MPI_Grequest_free_function(extra_state, ierror)
      IMPORT
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
      INTEGER :: ierror
    END SUBROUTINE
    SUBROUTINE MPI_Grequest_cancel_function(extra_state, complete, ierror)
      IMPORT
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
      LOGICAL :: complete
      INTEGER :: ierror
    END SUBROUTINE
    SUBROUTINE MPI_Datarep_extent_function(datatype, extent, extra_state, ierror)
      IMPORT
      TYPE(MPI_Datatype) :: datatype
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extent, extra_state
      INTEGER :: ierror
    END SUBROUTINE
    SUBROUTINE MPI_Datarep_conversion_function(userbuf, datatype, count, filebuf, &
        position, extra_state, ierror)
      IMPORT
      TYPE(C_PTR), VALUE :: userbuf, filebuf
      TYPE(MPI_Datatype) :: datatype
      INTEGER :: count, ierror
      INTEGER(KIND=MPI_OFFSET_KIND) :: position
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
    END SUBROUTINE
    SUBROUTINE MPI_Datarep_conversion_function_c(userbuf, datatype, count, filebuf, &
        position, extra_state, ierror)
      IMPORT
      TYPE(C_PTR), VALUE :: userbuf, filebuf
      TYPE(MPI_Datatype) :: datatype
      INTEGER(KIND=MPI_COUNT_KIND) :: count
      INTEGER(KIND=MPI_OFFSET_KIND) :: position
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
      INTEGER :: ierror
    END SUBROUTINE
  END INTERFACE
'''

SIZEOF = '''
  INTERFACE MPI_Sizeof
    MODULE PROCEDURE zmpi_sizeof
  END INTERFACE
  INTERFACE PMPI_Sizeof
    MODULE PROCEDURE zmpi_sizeof
  END INTERFACE
'''
SIZEOF_BODY = '''
  ! MPI_SIZEOF (deprecated in MPI 4.1): the storage size of x in bytes.
  SUBROUTINE zmpi_sizeof(x, size, ierror)
    CLASS(*), DIMENSION(..), INTENT(IN) :: x
    INTEGER, INTENT(OUT) :: size
    INTEGER%s :: ierror
    size = INT(STORAGE_SIZE(x) / 8)
    %sierror = MPI_SUCCESS
  END SUBROUTINE
'''

SYNC_REG = '''
  INTERFACE MPI_F_sync_reg
    SUBROUTINE MPI_F_sync_reg(buf)
      %s
      %s :: buf%s
    END SUBROUTINE
  END INTERFACE
'''


def gen_mpi_module(consts, fns, path):
    L = ['! Module mpi of zmpi.  DO NOT EDIT: generated by scripts/gen_fortran.py from',
         '! include/mpi.h; constants from the C library (src/bindings/fortran/fconst.c).',
         'MODULE mpi',
         '  USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_INT, C_CHAR, C_PTR',
         '  IMPLICIT NONE',
         '  PRIVATE :: C_INT, C_CHAR, C_PTR']
    L += const_lines(consts, False)
    L += sentinel_lines(False)
    L += wrap('  EXTERNAL :: ' + ', '.join(n for n, _ in PREDEF_CALLBACKS), '  ')
    L += module_interfaces(fns, False)
    L.append(SYNC_REG % ('!GCC$ ATTRIBUTES NO_ARG_CHECK :: buf', 'TYPE(*)', '(*)'))
    L.append(SIZEOF)
    L.append('CONTAINS')
    L.append(SIZEOF_BODY % ('', ''))
    L.append('END MODULE mpi')
    write(path, '\n'.join(L) + '\n')


def gen_f08_module(consts, fns, path):
    kinds = sorted(set(c[1] for c in consts if c[0] == 'HANDLE'))
    L = ['! Module mpi_f08 of zmpi.  DO NOT EDIT: generated by scripts/gen_fortran.py',
         '! from include/mpi.h; constants from the C library (fconst.c).',
         'MODULE mpi_f08',
         '  USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_INT, C_CHAR, C_PTR, C_INT64_T',
         '  IMPLICIT NONE',
         '  PRIVATE :: C_INT, C_CHAR, C_INT64_T',
         '  PUBLIC :: C_PTR']
    for c in consts:
        if c[0] == 'KIND':
            L.append('  INTEGER, PARAMETER :: %s = %s' % (c[1], c[2]))
    for k in kinds:
        L += ['  TYPE, BIND(C) :: %s' % k, '    INTEGER :: MPI_VAL', '  END TYPE %s' % k]
    ssize = [c for c in consts if c[0] == 'INT' and c[1] == 'MPI_STATUS_SIZE'][0][2]
    # The type of the choice sentinels (F08_CHOICE_SENTINELS).
    L += ['  TYPE, BIND(C) :: zmpi_sentinel',
          '    INTEGER(C_INT), PRIVATE :: zmpi_unused',
          '  END TYPE zmpi_sentinel',
          '  PRIVATE :: zmpi_sentinel']
    # The C status's layout (mpi.h's MPI_F08_status: three public integers,
    # the cancelled flag, the byte count as two integers), with the count as
    # one 8-byte integer: the type is then aligned as a C MPI_Status, so
    # the glue passes any TYPE(MPI_Status) to the C calls as it is, without
    # testing its alignment (zf_status_fast).
    assert int(ssize) == 6, 'MPI_Status of mpi_f08: the C status layout changed'
    L += ['  TYPE, BIND(C) :: MPI_Status',
          '    INTEGER :: MPI_SOURCE, MPI_TAG, MPI_ERROR',
          '    INTEGER(C_INT), PRIVATE :: zmpi_cancelled',
          '    INTEGER(C_INT64_T), PRIVATE :: zmpi_count',
          '  END TYPE MPI_Status']
    L += [l for l in const_lines(consts, True) if 'KIND =' not in l.split('::')[1][:20]
          or 'PARAMETER :: MPI_' not in l]
    L += sentinel_lines(True)
    L.append(F08_ABSTRACT)
    L.append('  PROCEDURE(MPI_Comm_copy_attr_function) :: MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN')
    L.append('  PROCEDURE(MPI_Comm_delete_attr_function) :: MPI_COMM_NULL_DELETE_FN')
    L.append('  PROCEDURE(MPI_Type_copy_attr_function) :: MPI_TYPE_NULL_COPY_FN, MPI_TYPE_DUP_FN')
    L.append('  PROCEDURE(MPI_Type_delete_attr_function) :: MPI_TYPE_NULL_DELETE_FN')
    L.append('  PROCEDURE(MPI_Win_copy_attr_function) :: MPI_WIN_NULL_COPY_FN, MPI_WIN_DUP_FN')
    L.append('  PROCEDURE(MPI_Win_delete_attr_function) :: MPI_WIN_NULL_DELETE_FN')
    L.append('  PROCEDURE(MPI_Copy_function) :: MPI_NULL_COPY_FN, MPI_DUP_FN')
    L.append('  PROCEDURE(MPI_Delete_function) :: MPI_NULL_DELETE_FN')
    L.append('  PROCEDURE(MPI_Datarep_conversion_function) :: MPI_CONVERSION_FN_NULL')
    L.append('  PROCEDURE(MPI_Datarep_conversion_function_c) :: MPI_CONVERSION_FN_NULL_C')
    L += module_interfaces(fns, True)
    L.append((SYNC_REG % ('IMPORT', 'TYPE(*), DIMENSION(..)', '')).replace(
        'SUBROUTINE MPI_F_sync_reg(buf)',
        'SUBROUTINE MPI_F_sync_reg(buf) BIND(C, NAME="MPI_F_sync_reg_f08ts")'))
    L.append(SIZEOF)
    # == and /= between handles (MPI 4.1 section 19.3.5).
    eq = []
    for k in kinds:
        eq.append(k)
    L.append('  INTERFACE OPERATOR(==)')
    L += wrap('    MODULE PROCEDURE ' + ', '.join('zmpi_eq_%s' % k[4:].lower() for k in kinds),
              '    ')
    L.append('  END INTERFACE')
    L.append('  INTERFACE OPERATOR(/=)')
    L += wrap('    MODULE PROCEDURE ' + ', '.join('zmpi_ne_%s' % k[4:].lower() for k in kinds),
              '    ')
    L.append('  END INTERFACE')
    L += wrap('  PRIVATE :: ' + ', '.join('zmpi_eq_%s, zmpi_ne_%s' % (k[4:].lower(),
                                                                    k[4:].lower()) for k in kinds),
              '  ')
    L.append('CONTAINS')
    for k in kinds:
        s = k[4:].lower()
        for op, rel in (('eq', '=='), ('ne', '/=')):
            L += ['  ELEMENTAL LOGICAL FUNCTION zmpi_%s_%s(a, b)' % (op, s),
                  '    TYPE(%s), INTENT(IN) :: a, b' % k,
                  '    zmpi_%s_%s = a%%MPI_VAL %s b%%MPI_VAL' % (op, s, rel),
                  '  END FUNCTION']
    L.append(SIZEOF_BODY % (', OPTIONAL, INTENT(OUT)', 'IF (PRESENT(ierror)) '))
    L.append('END MODULE mpi_f08')
    write(path, '\n'.join(l for l in L if l is not None) + '\n')


# ---- The names list for the constants program ---------------------------

# Macros that are not Fortran constants: C-only objects and sentinels (the
# sentinels are Fortran objects of their own, SENTINELS).
CONST_SKIP = re.compile(r'^(MPI_F_STATUS(ES)?_IGNORE|MPI_F08_STATUS(ES)?_IGNORE|'
                        r'MPI_STATUS(ES)?_IGNORE|MPI_IN_PLACE|MPI_BOTTOM|'
                        r'MPI_BUFFER_AUTOMATIC|MPI_UNWEIGHTED|MPI_WEIGHTS_EMPTY|'
                        r'MPI_T_.*_NULL|MPI_T_PVAR_ALL_HANDLES|MPI_CONVERSION_FN_NULL|'
                        r'MPI_.*_FN|MPI_VERSION_STRING)$')


def gen_names(macros, path):
    out = ['/* DO NOT EDIT: generated by scripts/gen_fortran.py: the object-like',
           ' * MPI_ macros of include/mpi.h that become Fortran constants. */']
    for m in macros:
        if CONST_SKIP.match(m):
            continue
        out.append('ZF_CONST(%s)' % m)
    write(path, '\n'.join(out) + '\n')
