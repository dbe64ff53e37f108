; ModuleID = 'examples/branches.c'
source_filename = "examples/branches.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [16 x i8] c"%d %d %d %d %d\0A\00", align 1

; Function Attrs: nounwind uwtable
define dso_local i32 @main() #0 !dbg !9 {
entry:
  %retval = alloca i32, align 4
  %evens = alloca i32, align 4
  %odds = alloca i32, align 4
  %both = alloca i32, align 4
  %either = alloca i32, align 4
  %big = alloca i32, align 4
  %i = alloca i32, align 4
  store i32 0, i32* %retval, align 4
  %0 = bitcast i32* %evens to i8*, !dbg !21
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %0) #4, !dbg !21
  call void @llvm.dbg.declare(metadata i32* %evens, metadata !14, metadata !DIExpression()), !dbg !22
  store i32 0, i32* %evens, align 4, !dbg !22, !tbaa !23
  %1 = bitcast i32* %odds to i8*, !dbg !21
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %1) #4, !dbg !21
  call void @llvm.dbg.declare(metadata i32* %odds, metadata !15, metadata !DIExpression()), !dbg !27
  store i32 0, i32* %odds, align 4, !dbg !27, !tbaa !23
  %2 = bitcast i32* %both to i8*, !dbg !21
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %2) #4, !dbg !21
  call void @llvm.dbg.declare(metadata i32* %both, metadata !16, metadata !DIExpression()), !dbg !28
  store i32 0, i32* %both, align 4, !dbg !28, !tbaa !23
  %3 = bitcast i32* %either to i8*, !dbg !21
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %3) #4, !dbg !21
  call void @llvm.dbg.declare(metadata i32* %either, metadata !17, metadata !DIExpression()), !dbg !29
  store i32 0, i32* %either, align 4, !dbg !29, !tbaa !23
  %4 = bitcast i32* %big to i8*, !dbg !21
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %4) #4, !dbg !21
  call void @llvm.dbg.declare(metadata i32* %big, metadata !18, metadata !DIExpression()), !dbg !30
  store i32 0, i32* %big, align 4, !dbg !30, !tbaa !23
  %5 = bitcast i32* %i to i8*, !dbg !31
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %5) #4, !dbg !31
  call void @llvm.dbg.declare(metadata i32* %i, metadata !19, metadata !DIExpression()), !dbg !32
  store i32 0, i32* %i, align 4, !dbg !32, !tbaa !23
  br label %for.cond, !dbg !31

for.cond:                                         ; preds = %for.inc, %entry
  %6 = load i32, i32* %i, align 4, !dbg !33, !tbaa !23
  %cmp = icmp slt i32 %6, 100, !dbg !35
  br i1 %cmp, label %for.body, label %for.cond.cleanup, !dbg !36

for.cond.cleanup:                                 ; preds = %for.cond
  %7 = bitcast i32* %i to i8*, !dbg !37
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %7) #4, !dbg !37
  br label %for.end

for.body:                                         ; preds = %for.cond
  %8 = load i32, i32* %i, align 4, !dbg !38, !tbaa !23
  %rem = srem i32 %8, 2, !dbg !41
  %cmp1 = icmp eq i32 %rem, 0, !dbg !42
  br i1 %cmp1, label %if.then, label %if.else, !dbg !43

if.then:                                          ; preds = %for.body
  %9 = load i32, i32* %evens, align 4, !dbg !44, !tbaa !23
  %inc = add nsw i32 %9, 1, !dbg !44
  store i32 %inc, i32* %evens, align 4, !dbg !44, !tbaa !23
  br label %if.end, !dbg !46

if.else:                                          ; preds = %for.body
  %10 = load i32, i32* %odds, align 4, !dbg !47, !tbaa !23
  %inc2 = add nsw i32 %10, 1, !dbg !47
  store i32 %inc2, i32* %odds, align 4, !dbg !47, !tbaa !23
  br label %if.end

if.end:                                           ; preds = %if.else, %if.then
  %11 = load i32, i32* %i, align 4, !dbg !49, !tbaa !23
  %rem3 = srem i32 %11, 3, !dbg !51
  %cmp4 = icmp eq i32 %rem3, 0, !dbg !52
  br i1 %cmp4, label %land.lhs.true, label %if.end9, !dbg !53

land.lhs.true:                                    ; preds = %if.end
  %12 = load i32, i32* %i, align 4, !dbg !54, !tbaa !23
  %rem5 = srem i32 %12, 5, !dbg !55
  %cmp6 = icmp eq i32 %rem5, 0, !dbg !56
  br i1 %cmp6, label %if.then7, label %if.end9, !dbg !57

if.then7:                                         ; preds = %land.lhs.true
  %13 = load i32, i32* %both, align 4, !dbg !58, !tbaa !23
  %inc8 = add nsw i32 %13, 1, !dbg !58
  store i32 %inc8, i32* %both, align 4, !dbg !58, !tbaa !23
  br label %if.end9, !dbg !59

if.end9:                                          ; preds = %if.then7, %land.lhs.true, %if.end
  %14 = load i32, i32* %i, align 4, !dbg !60, !tbaa !23
  %rem10 = srem i32 %14, 3, !dbg !62
  %cmp11 = icmp eq i32 %rem10, 0, !dbg !63
  br i1 %cmp11, label %if.then14, label %lor.lhs.false, !dbg !64

lor.lhs.false:                                    ; preds = %if.end9
  %15 = load i32, i32* %i, align 4, !dbg !65, !tbaa !23
  %rem12 = srem i32 %15, 5, !dbg !66
  %cmp13 = icmp eq i32 %rem12, 0, !dbg !67
  br i1 %cmp13, label %if.then14, label %if.end16, !dbg !68

if.then14:                                        ; preds = %lor.lhs.false, %if.end9
  %16 = load i32, i32* %either, align 4, !dbg !69, !tbaa !23
  %inc15 = add nsw i32 %16, 1, !dbg !69
  store i32 %inc15, i32* %either, align 4, !dbg !69, !tbaa !23
  br label %if.end16, !dbg !70

if.end16:                                         ; preds = %if.then14, %lor.lhs.false
  %17 = load i32, i32* %i, align 4, !dbg !71, !tbaa !23
  %cmp17 = icmp sgt i32 %17, 90, !dbg !72
  br i1 %cmp17, label %cond.true, label %cond.false, !dbg !71

cond.true:                                        ; preds = %if.end16
  %18 = load i32, i32* %i, align 4, !dbg !73, !tbaa !23
  %call = call i32 @weight(i32 noundef %18), !dbg !74
  br label %cond.end, !dbg !71

cond.false:                                       ; preds = %if.end16
  %19 = load i32, i32* %i, align 4, !dbg !75, !tbaa !23
  %call18 = call i32 @weight(i32 noundef %19), !dbg !76
  %sub = sub nsw i32 0, %call18, !dbg !77
  br label %cond.end, !dbg !71

cond.end:                                         ; preds = %cond.false, %cond.true
  %cond = phi i32 [ %call, %cond.true ], [ %sub, %cond.false ], !dbg !71
  %20 = load i32, i32* %big, align 4, !dbg !78, !tbaa !23
  %add = add nsw i32 %20, %cond, !dbg !78
  store i32 %add, i32* %big, align 4, !dbg !78, !tbaa !23
  br label %for.inc, !dbg !79

for.inc:                                          ; preds = %cond.end
  %21 = load i32, i32* %i, align 4, !dbg !80, !tbaa !23
  %inc19 = add nsw i32 %21, 1, !dbg !80
  store i32 %inc19, i32* %i, align 4, !dbg !80, !tbaa !23
  br label %for.cond, !dbg !37, !llvm.loop !81

for.end:                                          ; preds = %for.cond.cleanup
  %22 = load i32, i32* %evens, align 4, !dbg !84, !tbaa !23
  %23 = load i32, i32* %odds, align 4, !dbg !85, !tbaa !23
  %24 = load i32, i32* %both, align 4, !dbg !86, !tbaa !23
  %25 = load i32, i32* %either, align 4, !dbg !87, !tbaa !23
  %26 = load i32, i32* %big, align 4, !dbg !88, !tbaa !23
  %call20 = call i32 (i8*, ...) @printf(i8* noundef getelementptr inbounds ([16 x i8], [16 x i8]* @.str, i64 0, i64 0), i32 noundef %22, i32 noundef %23, i32 noundef %24, i32 noundef %25, i32 noundef %26), !dbg !89
  %27 = bitcast i32* %big to i8*, !dbg !90
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %27) #4, !dbg !90
  %28 = bitcast i32* %either to i8*, !dbg !90
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %28) #4, !dbg !90
  %29 = bitcast i32* %both to i8*, !dbg !90
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %29) #4, !dbg !90
  %30 = bitcast i32* %odds to i8*, !dbg !90
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %30) #4, !dbg !90
  %31 = bitcast i32* %evens to i8*, !dbg !90
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %31) #4, !dbg !90
  ret i32 0, !dbg !91
}

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.start.p0i8(i64 immarg, i8* nocapture) #1

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare void @llvm.dbg.declare(metadata, metadata, metadata) #2

; Function Attrs: nounwind uwtable
define internal i32 @weight(i32 noundef %i) #0 !dbg !92 {
entry:
  %i.addr = alloca i32, align 4
  store i32 %i, i32* %i.addr, align 4, !tbaa !23
  call void @llvm.dbg.declare(metadata i32* %i.addr, metadata !96, metadata !DIExpression()), !dbg !97
  %0 = load i32, i32* %i.addr, align 4, !dbg !98, !tbaa !23
  %rem = srem i32 %0, 7, !dbg !99
  ret i32 %rem, !dbg !100
}

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.end.p0i8(i64 immarg, i8* nocapture) #1

declare i32 @printf(i8* noundef, ...) #3

attributes #0 = { nounwind uwtable "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { argmemonly nofree nosync nounwind willreturn }
attributes #2 = { nofree nosync nounwind readnone speculatable willreturn }
attributes #3 = { "frame-pointer"="none" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7}
!llvm.ident = !{!8}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "Debian clang version 14.0.6", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "examples/branches.c", directory: "/src", checksumkind: CSK_MD5, checksum: "4483d70d055c93b7732892c5ce136273")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 7, !"PIC Level", i32 2}
!6 = !{i32 7, !"PIE Level", i32 2}
!7 = !{i32 7, !"uwtable", i32 1}
!8 = !{!"Debian clang version 14.0.6"}
!9 = distinct !DISubprogram(name: "main", scope: !1, file: !1, line: 6, type: !10, scopeLine: 6, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !13)
!10 = !DISubroutineType(types: !11)
!11 = !{!12}
!12 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!13 = !{!14, !15, !16, !17, !18, !19}
!14 = !DILocalVariable(name: "evens", scope: !9, file: !1, line: 7, type: !12)
!15 = !DILocalVariable(name: "odds", scope: !9, file: !1, line: 7, type: !12)
!16 = !DILocalVariable(name: "both", scope: !9, file: !1, line: 7, type: !12)
!17 = !DILocalVariable(name: "either", scope: !9, file: !1, line: 7, type: !12)
!18 = !DILocalVariable(name: "big", scope: !9, file: !1, line: 7, type: !12)
!19 = !DILocalVariable(name: "i", scope: !20, file: !1, line: 8, type: !12)
!20 = distinct !DILexicalBlock(scope: !9, file: !1, line: 8, column: 3)
!21 = !DILocation(line: 7, column: 3, scope: !9)
!22 = !DILocation(line: 7, column: 7, scope: !9)
!23 = !{!24, !24, i64 0}
!24 = !{!"int", !25, i64 0}
!25 = !{!"omnipotent char", !26, i64 0}
!26 = !{!"Simple C/C++ TBAA"}
!27 = !DILocation(line: 7, column: 18, scope: !9)
!28 = !DILocation(line: 7, column: 28, scope: !9)
!29 = !DILocation(line: 7, column: 38, scope: !9)
!30 = !DILocation(line: 7, column: 50, scope: !9)
!31 = !DILocation(line: 8, column: 8, scope: !20)
!32 = !DILocation(line: 8, column: 12, scope: !20)
!33 = !DILocation(line: 8, column: 19, scope: !34)
!34 = distinct !DILexicalBlock(scope: !20, file: !1, line: 8, column: 3)
!35 = !DILocation(line: 8, column: 21, scope: !34)
!36 = !DILocation(line: 8, column: 3, scope: !20)
!37 = !DILocation(line: 8, column: 3, scope: !34)
!38 = !DILocation(line: 9, column: 9, scope: !39)
!39 = distinct !DILexicalBlock(scope: !40, file: !1, line: 9, column: 9)
!40 = distinct !DILexicalBlock(scope: !34, file: !1, line: 8, column: 33)
!41 = !DILocation(line: 9, column: 11, scope: !39)
!42 = !DILocation(line: 9, column: 15, scope: !39)
!43 = !DILocation(line: 9, column: 9, scope: !40)
!44 = !DILocation(line: 10, column: 12, scope: !45)
!45 = distinct !DILexicalBlock(scope: !39, file: !1, line: 9, column: 21)
!46 = !DILocation(line: 11, column: 5, scope: !45)
!47 = !DILocation(line: 12, column: 11, scope: !48)
!48 = distinct !DILexicalBlock(scope: !39, file: !1, line: 11, column: 12)
!49 = !DILocation(line: 14, column: 9, scope: !50)
!50 = distinct !DILexicalBlock(scope: !40, file: !1, line: 14, column: 9)
!51 = !DILocation(line: 14, column: 11, scope: !50)
!52 = !DILocation(line: 14, column: 15, scope: !50)
!53 = !DILocation(line: 14, column: 20, scope: !50)
!54 = !DILocation(line: 14, column: 23, scope: !50)
!55 = !DILocation(line: 14, column: 25, scope: !50)
!56 = !DILocation(line: 14, column: 29, scope: !50)
!57 = !DILocation(line: 14, column: 9, scope: !40)
!58 = !DILocation(line: 15, column: 11, scope: !50)
!59 = !DILocation(line: 15, column: 7, scope: !50)
!60 = !DILocation(line: 16, column: 9, scope: !61)
!61 = distinct !DILexicalBlock(scope: !40, file: !1, line: 16, column: 9)
!62 = !DILocation(line: 16, column: 11, scope: !61)
!63 = !DILocation(line: 16, column: 15, scope: !61)
!64 = !DILocation(line: 16, column: 20, scope: !61)
!65 = !DILocation(line: 16, column: 23, scope: !61)
!66 = !DILocation(line: 16, column: 25, scope: !61)
!67 = !DILocation(line: 16, column: 29, scope: !61)
!68 = !DILocation(line: 16, column: 9, scope: !40)
!69 = !DILocation(line: 17, column: 13, scope: !61)
!70 = !DILocation(line: 17, column: 7, scope: !61)
!71 = !DILocation(line: 18, column: 12, scope: !40)
!72 = !DILocation(line: 18, column: 14, scope: !40)
!73 = !DILocation(line: 19, column: 18, scope: !40)
!74 = !DILocation(line: 19, column: 11, scope: !40)
!75 = !DILocation(line: 20, column: 19, scope: !40)
!76 = !DILocation(line: 20, column: 12, scope: !40)
!77 = !DILocation(line: 20, column: 11, scope: !40)
!78 = !DILocation(line: 18, column: 9, scope: !40)
!79 = !DILocation(line: 21, column: 3, scope: !40)
!80 = !DILocation(line: 8, column: 29, scope: !34)
!81 = distinct !{!81, !36, !82, !83}
!82 = !DILocation(line: 21, column: 3, scope: !20)
!83 = !{!"llvm.loop.mustprogress"}
!84 = !DILocation(line: 22, column: 30, scope: !9)
!85 = !DILocation(line: 22, column: 37, scope: !9)
!86 = !DILocation(line: 22, column: 43, scope: !9)
!87 = !DILocation(line: 22, column: 49, scope: !9)
!88 = !DILocation(line: 22, column: 57, scope: !9)
!89 = !DILocation(line: 22, column: 3, scope: !9)
!90 = !DILocation(line: 24, column: 1, scope: !9)
!91 = !DILocation(line: 23, column: 3, scope: !9)
!92 = distinct !DISubprogram(name: "weight", scope: !1, file: !1, line: 4, type: !93, scopeLine: 4, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !95)
!93 = !DISubroutineType(types: !94)
!94 = !{!12, !12}
!95 = !{!96}
!96 = !DILocalVariable(name: "i", arg: 1, scope: !92, file: !1, line: 4, type: !12)
!97 = !DILocation(line: 4, column: 23, scope: !92)
!98 = !DILocation(line: 4, column: 35, scope: !92)
!99 = !DILocation(line: 4, column: 37, scope: !92)
!100 = !DILocation(line: 4, column: 28, scope: !92)
