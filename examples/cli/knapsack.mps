NAME          CLIENTMIP
ROWS
 N  obj
 L  cap
COLUMNS
    MARKER                 'MARKER'                 'INTORG'
    x         obj       -3   cap       2
    y         obj       -4   cap       3
    z         obj       -5   cap       4
    MARKER                 'MARKER'                 'INTEND'
RHS
    rhs       cap       7
BOUNDS
 UP bnd       x         1
 UP bnd       y         1
 UP bnd       z         1
ENDATA
