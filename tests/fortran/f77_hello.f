C     f77_hello.f: fixed-form Fortran 77 with mpif.h (issue 19): a ring
C     with statuses, MPI_Reduce of DOUBLE PRECISION and MPI_BOTTOM with
C     an absolute-address datatype.  Verifies itself; "FAIL rank" and an
C     abort on a wrong result.
      PROGRAM F77HEL
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NPROCS, IERR, LEFT, RIGHT, VAL, GOT, N
      INTEGER STATUS(MPI_STATUS_SIZE), ABSTYP
      INTEGER(KIND=MPI_ADDRESS_KIND) ADDR
      DOUBLE PRECISION X, TOTAL
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      LEFT = MOD(RANK - 1 + NPROCS, NPROCS)
      RIGHT = MOD(RANK + 1, NPROCS)
      VAL = RANK * 7
      CALL MPI_SENDRECV(VAL, 1, MPI_INTEGER, RIGHT, 9, GOT, 1,
     &     MPI_INTEGER, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, STATUS, IERR)
      IF (GOT .NE. LEFT * 7 .OR. STATUS(MPI_SOURCE) .NE. LEFT) THEN
         WRITE(*, *) 'FAIL rank ', RANK, ': ring ', GOT
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
C     The received value through MPI_BOTTOM and its absolute address.
      CALL MPI_GET_ADDRESS(GOT, ADDR, IERR)
      CALL MPI_TYPE_CREATE_HINDEXED(1, (/ 1 /), (/ ADDR /),
     &     MPI_INTEGER, ABSTYP, IERR)
      CALL MPI_TYPE_COMMIT(ABSTYP, IERR)
      N = -1
      CALL MPI_SENDRECV(MPI_BOTTOM, 1, ABSTYP, RANK, 3, N, 1,
     &     MPI_INTEGER, RANK, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE,
     &     IERR)
      IF (N .NE. GOT) THEN
         WRITE(*, *) 'FAIL rank ', RANK, ': MPI_BOTTOM ', N
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      CALL MPI_TYPE_FREE(ABSTYP, IERR)
      X = RANK + 0.5D0
      CALL MPI_REDUCE(X, TOTAL, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0,
     &     MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0 .AND. TOTAL .NE. NPROCS * (NPROCS - 1) / 2.0D0
     &     + NPROCS * 0.5D0) THEN
         WRITE(*, *) 'FAIL rank 0: reduce ', TOTAL
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      IF (RANK .EQ. 0) WRITE(*, '(A)') 'f77_hello: OK'
      CALL MPI_FINALIZE(IERR)
      END
