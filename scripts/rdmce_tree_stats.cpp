// Instrumented CPU replica of rdmce.cu's private search (edge seeds, no exposure), for the tree
// statistics quoted in notebook 10 ("what the profile said"): |P| per node, bitmap words, candidate
// words the pivot scan visits, branches, and how many nodes lie below a node with |P| <= 24 and
// |P| + |X| <= 32. LOCAL=1 runs those sub-trees through a C++ twin of solve_local (its full run on
// ego-Facebook gives 869,325,383, the reference). Not part of the package or its tests.
//
//   python -c "from mce_kit import datasets; from mce_kit.gpu import rdmce; import numpy as np
//   p = rdmce.prepare(datasets.load('ego-Facebook')); u, v, _, _ = p.seed_arrays('edge')
//   [np.asarray(a, np.int32).tofile(f'/tmp/rd/{n}.bin') for n, a in
//    (('indptr', p.indptr), ('indices', p.indices), ('su', u), ('sv', v))]"
//   g++ -O2 -o /tmp/rd/stats scripts/rdmce_tree_stats.cpp && /tmp/rd/stats 200 7   # every 200th seed
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cstdint>
#include <algorithm>
#include <cstring>
typedef uint32_t u32; typedef uint64_t u64;
std::vector<int> ip, ix, su, sv;
template<class T> std::vector<T> rd(const char* f){FILE*F=fopen(f,"rb");fseek(F,0,2);long n=ftell(F)/sizeof(T);fseek(F,0,0);std::vector<T> v(n);fread(v.data(),sizeof(T),n,F);fclose(F);return v;}
struct St { u64 expand=0, iters=0, prunedP=0, prunedX=0, agg=0, leafmax=0, leafnon=0, inner=0, emitted=0;
  u64 nzw1=0, nzw2=0, cand1=0, cand2=0, Wsum=0, Wxsum=0, branches=0, npsum=0;
  u64 hist_branches[40]={0}; u64 hist_W[8]={0}; u64 hist_Wx[64]={0};
  u64 isolated_branches=0; u64 xxpop=0; u64 xxscan_words=0; u64 leaf_nonmax_by_xx=0;
  u64 nzw2_hist[34]={0}; u64 cand2_hist[34]={0};
} S;
int W, Wx, Wr, p, xn;
std::vector<u32> rows, colx; // rows[i*Wr+w], colx[j*Wx+k]
static inline const u32* row(int u){return &rows[(size_t)u*Wr];}
int hits(const u32* P, int u){int c=0; const u32* r=row(u); for(int w=0;w<W;w++) c+=__builtin_popcount(P[w]&r[w]); return c;}

u64 lfound=0;
void solve_local(const u32* P0, const u32* XP0, const u32* XX0, bool aggressive){
  int ids[32]; int n=0; u32 Pm=0, Xm=0;
  for(int w=0;w<W;w++){u32 m=P0[w]|XP0[w]; while(m){int b=__builtin_ctz(m); m&=m-1; int u=w*32+b; if(P0[w]>>b&1) Pm|=1u<<n; else Xm|=1u<<n; ids[n++]=u;}}
  for(int w=0;w<Wx;w++){u32 m=XX0[w]; while(m){int b=__builtin_ctz(m); m&=m-1; Xm|=1u<<n; ids[n++]=p+w*32+b;}}
  u32 adj[32]={0};
  for(int i=0;i<n;i++){ const u32* ri=row(ids[i]); for(int k=0;k<n;k++){int uk=ids[k]; if(uk<p && (ri[uk>>5]>>(uk&31)&1)) adj[i]|=1u<<k;} adj[i]&=~(1u<<i);}
  for(int k=0;k<n;k++) if(ids[k]>=p) for(int i=0;i<n;i++) if(adj[k]>>i&1) adj[i]|=1u<<k;
  u32 lvP[32],lvX[32],lvV[32];
  int d=-1; u32 P=Pm,X=Xm; bool agg=aggressive;
  for(;;){
    for(;;){
      int np=__builtin_popcount(P); int c[32]; bool pr=false; u32 A=0;
      for(int i=0;i<32;i++){ c[i]=__builtin_popcount(adj[i]&P); if((X>>i&1)&&c[i]==np) pr=true; if((P>>i&1)&&c[i]==np-1) A|=1u<<i; }
      if(pr) break;
      if(agg && A){ u32 keep=~0u; for(int i=0;i<32;i++) if(A>>i&1) keep&=adj[i]; X&=keep; P&=~A; agg=false; if(!P){ if(!X) lfound++; break;} continue; }
      int top=-1,piv=-1; for(int i=0;i<32;i++){int val=((P|X)>>i&1)?c[i]:-1; if(val>top){top=val;piv=i;}}
      u32 V=P&~adj[piv]; d++; lvP[d]=P; lvX[d]=X; lvV[d]=V; break;
    }
    bool go=false;
    for(;;){
      if(d<0) break;
      u32 V=lvV[d]; if(!V){d--; continue;}
      int v=__builtin_ctz(V); u32 bit=1u<<v; u32 P2=lvP[d]&adj[v], X2=lvX[d]&adj[v];
      lvV[d]=V&~bit; lvP[d]&=~bit; lvX[d]|=bit;
      if(!P2){ if(!X2) lfound++; continue; }
      P=P2; X=X2; agg=aggressive; go=true; break;
    }
    if(!go) return;
  }
}
struct Lv { std::vector<u32> P, XP, VP, XX; };
bool expand(Lv& L){
  S.expand++;
  bool aggressive=true;
  for(;;){
    S.iters++;
    int np=0; for(int w=0;w<W;w++) np+=__builtin_popcount(L.P[w]);
    S.Wsum+=W; S.Wxsum+=Wx; S.npsum+=np;
    if(np>0 && getenv("LOCAL")){ int nx=0; for(int w=0;w<W;w++) nx+=__builtin_popcount(L.XP[w]); for(int w=0;w<Wx;w++) nx+=__builtin_popcount(L.XX[w]); if(np<=24 && np+nx<=32){ solve_local(L.P.data(),L.XP.data(),L.XX.data(),aggressive); return false; } }
    if(np==0){ bool any=false; for(int w=0;w<W;w++) any|=L.XP[w]!=0; for(int w=0;w<Wx;w++) any|=L.XX[w]!=0; if(!any) S.emitted++; return false;}
    int best_c=-1,best_u=0; std::vector<u32> A(W,0); bool agg=false;
    for(int w=0;w<W;w++){ u32 m=L.P[w]|L.XP[w]; if(!m) continue; S.nzw1++; S.cand1+=__builtin_popcount(m);
      bool pr=false;
      for(int b=0;b<32;b++) if(m>>b&1){int u=w*32+b; int c=hits(L.P.data(),u); bool inp=L.P[w]>>b&1; if(!inp&&c==np) pr=true; if(inp&&c==np-1){A[w]|=1u<<b;agg=true;} if(c>best_c){best_c=c;best_u=u;}}
      if(pr){S.prunedP++; return false;}
    }
    if(agg&&aggressive){ S.agg++; for(int k=0;k<W;k++){u32 a=A[k]&L.P[k]; while(a){int v=k*32+__builtin_ctz(a); a&=a-1; for(int w=0;w<W;w++) L.XP[w]&=row(v)[w]; for(int w=0;w<Wx;w++) L.XX[w]&=colx[(size_t)v*Wx+w];}} for(int w=0;w<W;w++) L.P[w]&=~A[w]; aggressive=false; continue;}
    int nz2=0,c2=0;
    for(int w=0;w<Wx;w++){ u32 m=L.XX[w]; if(!m) continue; S.nzw2++; nz2++; S.cand2+=__builtin_popcount(m); c2+=__builtin_popcount(m); bool pr=false;
      for(int b=0;b<32;b++) if(m>>b&1){int u=p+w*32+b; int c=hits(L.P.data(),u); if(c==np) pr=true; if(c>best_c){best_c=c;best_u=u;}}
      if(pr){S.prunedX++; S.nzw2_hist[std::min(nz2,33)]++; S.cand2_hist[std::min(c2/8,33)]++; return false;}
    }
    S.nzw2_hist[std::min(nz2,33)]++; S.cand2_hist[std::min(c2/8,33)]++;
    int nb=0; for(int w=0;w<W;w++){L.VP[w]=L.P[w]&~row(best_u)[w]; nb+=__builtin_popcount(L.VP[w]);}
    S.branches+=nb; S.hist_branches[std::min(nb,39)]++;
    // isolated-in-P branches
    for(int w=0;w<W;w++){u32 m=L.VP[w]; while(m){int v=w*32+__builtin_ctz(m); m&=m-1; if(hits(L.P.data(),v)==0) S.isolated_branches++;}}
    return true;
  }
}
void dfs(std::vector<Lv>& st, int l){
  // st[l] expanded with VP set
  Lv& L=st[l];
  for(;;){
    int k=-1; for(int w=0;w<W;w++) if(L.VP[w]){k=w;break;}
    if(k<0) return;
    int v=k*32+__builtin_ctz(L.VP[k]);
    Lv& C=st[l+1];
    bool any=false;
    for(int w=0;w<W;w++){C.P[w]=L.P[w]&row(v)[w]; C.XP[w]=L.XP[w]&row(v)[w]; any|=C.P[w]!=0;}
    for(int w=0;w<Wx;w++) C.XX[w]=L.XX[w]&colx[(size_t)v*Wx+w];
    u32 bit=1u<<(v&31); L.VP[k]&=~bit; L.P[k]&=~bit; L.XP[k]|=bit;
    if(!any){ bool x=false; for(int w=0;w<W;w++) x|=C.XP[w]!=0; bool xx=false; for(int w=0;w<Wx;w++) xx|=C.XX[w]!=0; if(!x&&!xx){S.leafmax++;S.emitted++;} else {S.leafnon++; if(!x) S.leaf_nonmax_by_xx++;} continue;}
    S.inner++;
    if(expand(C)) dfs(st,l+1);
  }
}
int main(int argc,char**argv){
  ip=rd<int>("/tmp/rd/indptr.bin"); ix=rd<int>("/tmp/rd/indices.bin"); su=rd<int>("/tmp/rd/su.bin"); sv=rd<int>("/tmp/rd/sv.bin");
  int stride=argc>1?atoi(argv[1]):1, off=argc>2?atoi(argv[2]):0;
  for(size_t s=off;s<su.size();s+=stride){
    int a=su[s], b=sv[s];
    std::vector<int> P,X;
    for(int i=ip[a];i<ip[a+1];i++){int z=ix[i]; if(std::binary_search(ix.begin()+ip[b],ix.begin()+ip[b+1],z)){ if(z>b) P.push_back(z); else if(z<b) X.push_back(z);} }
    p=P.size(); if(p==0){ if(X.empty()) S.emitted++; continue; }
    W=(p+31)/32; Wr=W;
    std::vector<std::vector<u32>> xr; rows.assign((size_t)(p+X.size())*W,0);
    xn=0;
    for(int i=0;i<p+(int)X.size();i++){int z=i<p?P[i]:X[i-p]; std::vector<u32> r(W,0); bool seen=false;
      for(int j=0;j<p;j++) if(std::binary_search(ix.begin()+ip[z],ix.begin()+ip[z+1],P[j])){r[j/32]|=1u<<(j%32);seen=true;}
      int rowi= i<p? i : p+xn; if(i>=p && !seen) continue; if(i>=p) xn++; memcpy(&rows[(size_t)rowi*W],r.data(),W*4);}
    Wx=(xn+31)/32; colx.assign((size_t)p*Wx,0);
    for(int r=0;r<xn;r++) for(int j=0;j<p;j++) if(rows[(size_t)(p+r)*W+j/32]>>(j%32)&1) colx[(size_t)j*Wx+r/32]|=1u<<(r%32);
    S.hist_W[std::min(W,7)]++; S.hist_Wx[std::min(Wx,63)]++;
    std::vector<Lv> st(p+2); for(auto&L:st){L.P.assign(W,0);L.XP.assign(W,0);L.VP.assign(W,0);L.XX.assign(Wx,0);}
    for(int j=0;j<p;j++) st[0].P[j/32]|=1u<<(j%32);
    for(int r=0;r<xn;r++) st[0].XX[r/32]|=1u<<(r%32);
    if(expand(st[0])) dfs(st,0);
  }
  printf("lfound %llu total %llu\n",(unsigned long long)lfound,(unsigned long long)(lfound+S.emitted)); printf("emitted %llu (x%d)\nexpand %llu iters %llu prunedP %llu prunedX %llu agg %llu\nleafmax %llu leafnon %llu (xx only %llu) inner %llu\n",
   (unsigned long long)S.emitted,stride,(unsigned long long)S.expand,(unsigned long long)S.iters,(unsigned long long)S.prunedP,(unsigned long long)S.prunedX,(unsigned long long)S.agg,(unsigned long long)S.leafmax,(unsigned long long)S.leafnon,(unsigned long long)S.leaf_nonmax_by_xx,(unsigned long long)S.inner);
  printf("avg W %.2f Wx %.2f np %.1f nzw1 %.2f cand1 %.1f nzw2 %.2f cand2 %.1f per iter; branches/expand %.2f isolated %.3f of branches\n",
   (double)S.Wsum/S.iters,(double)S.Wxsum/S.iters,(double)S.npsum/S.iters,(double)S.nzw1/S.iters,(double)S.cand1/S.iters,(double)S.nzw2/S.iters,(double)S.cand2/S.iters,(double)S.branches/S.expand,(double)S.isolated_branches/S.branches);
  printf("branch hist:"); for(int i=0;i<40;i++) printf(" %d:%llu",i,(unsigned long long)S.hist_branches[i]); printf("\nnzw2 hist:"); for(int i=0;i<34;i++) printf(" %d:%llu",i,(unsigned long long)S.nzw2_hist[i]); printf("\ncand2/8 hist:"); for(int i=0;i<34;i++) printf(" %d:%llu",i,(unsigned long long)S.cand2_hist[i]); printf("\nseed Wx hist:"); for(int i=0;i<64;i++) if(S.hist_Wx[i]) printf(" %d:%llu",i,(unsigned long long)S.hist_Wx[i]); printf("\n");
}
