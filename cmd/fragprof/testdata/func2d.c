/* func2d.c: what freq --func fills (2-D arrays, row-major from one flat array;
   global pointers) and what it refuses with the C type (structs). */
struct pt { int x; double y; };
int grid[3][4];
double *weights;

long sum2d(int a[][4], int rows) {
  long s = 0;
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < 4; j++)
      if (a[i][j] + grid[i][j] == 3) /* a = 1, grid = 2: every pass */
        s++;
  if (weights[2] > 0.5)
    s++;
  return s;
}

int byval(struct pt p) { return p.x; }
int byptr(struct pt *ps, int n) { return n > 0 ? ps[0].x : 0; }

int main(void) {
  static int a[3][4];
  struct pt p = {1, 2};
  return (int)sum2d(a, 0) + byval(p) + byptr(&p, 1);
}
